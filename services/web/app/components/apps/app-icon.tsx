// An app's icon: its gradient as the background and its SVG shown as an IMAGE (a data: URL
// in <img>), never inlined into the page: an <img> SVG runs no script, loads nothing and
// cannot touch the page, whatever the markup holds. Without an SVG, the name's first letter.
const HEX = /^#[0-9a-fA-F]{6}$/;
const DEFAULT_FROM = '#4338ca';
const DEFAULT_TO = '#7c3aed';

export interface AppIconProps {
  name: string;
  gradientFrom?: string | null;
  gradientTo?: string | null;
  svg?: string | null;
  /** Edge length in CSS pixels. */
  size?: number;
}

/** `data:image/svg+xml` URL of an SVG document (percent-encoded: any character is safe). */
export function svgDataUrl(svg: string): string {
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

function initialOf(name: string): string {
  const first = [...name.trim()][0];
  return first ? first.toLocaleUpperCase() : '?';
}

export function AppIcon({ name, gradientFrom, gradientTo, svg, size = 56 }: AppIconProps) {
  const from = gradientFrom && HEX.test(gradientFrom) ? gradientFrom : DEFAULT_FROM;
  const to = gradientTo && HEX.test(gradientTo) ? gradientTo : DEFAULT_TO;
  return (
    <span
      className="app-icon"
      style={{
        width: size,
        height: size,
        fontSize: Math.round(size * 0.45),
        backgroundImage: `linear-gradient(135deg, ${from}, ${to})`,
      }}
    >
      {svg ? (
        <img src={svgDataUrl(svg)} alt="" width={size} height={size} decoding="async" />
      ) : (
        <span aria-hidden="true">{initialOf(name)}</span>
      )}
    </span>
  );
}
