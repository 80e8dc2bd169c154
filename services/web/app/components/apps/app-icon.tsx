// An app's icon: its gradient as the background and its SVG shown as an IMAGE, never
// inlined into the page: an <img> SVG runs no script, loads nothing and cannot touch the
// page, whatever the markup holds. Lists (cards, desktop) carry no SVG, only `has_icon`: their
// <img> loads GET /api/v1/apps/{slug}/icon (same origin, lazily). The detail page and the
// developer preview have the SVG itself (a data: URL; the preview shows unsaved edits).
// Without an SVG, the name's first letter.
import { iconUrl } from '@svc/client';
import type { AppListItem } from '@svc/types';
const HEX = /^#[0-9a-fA-F]{6}$/;
const DEFAULT_FROM = '#4338ca';
const DEFAULT_TO = '#7c3aed';

export interface AppIconProps {
  name: string;
  gradientFrom?: string | null;
  gradientTo?: string | null;
  svg?: string | null;
  /** URL of the icon image (an app with has_icon, from a list); `svg` wins when both are set. */
  src?: string | null;
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

export function AppIcon({ name, gradientFrom, gradientTo, svg, src, size = 56 }: AppIconProps) {
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
      ) : src ? (
        <img src={src} alt="" loading="lazy" width={size} height={size} decoding="async" />
      ) : (
        <span aria-hidden="true">{initialOf(name)}</span>
      )}
    </span>
  );
}

/** The icon of an app from a list (listing, installed apps): gradient, and its image if any. */
export function ListedAppIcon({
  app,
  size,
}: {
  app: Pick<AppListItem, 'name' | 'slug' | 'icon_gradient_from' | 'icon_gradient_to' | 'has_icon'>;
  size?: number;
}) {
  return (
    <AppIcon
      name={app.name}
      gradientFrom={app.icon_gradient_from}
      gradientTo={app.icon_gradient_to}
      src={app.has_icon ? iconUrl(app.slug) : null}
      size={size}
    />
  );
}
