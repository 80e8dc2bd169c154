// icon_svg sanitising (DECISIONS §4): no scripts, no event handlers, no external
// references. DOMPurify (on a jsdom window) with its SVG profile removes scripts and on*
// attributes; the hook and forbidden tags below remove everything that can load another
// resource: href/xlink:href other than a local `#id`, `url(...)` other than `url(#id)`,
// <image>/<feImage>/<use> of other documents, <style> (@import, url()) and style attributes.
import createDOMPurify, { type Config } from 'dompurify';
import { JSDOM } from 'jsdom';

const { window } = new JSDOM('');
const purify = createDOMPurify(window as unknown as Parameters<typeof createDOMPurify>[0]);

const REFERENCE_ATTRIBUTES = new Set(['href', 'xlink:href', 'src']);
/** `url(` not followed by a local fragment reference. */
const EXTERNAL_URL = /url\s*\(\s*(?!['"]?\s*#)/i;

purify.addHook('uponSanitizeAttribute', (_node, data) => {
  const name = data.attrName.toLowerCase();
  const value = data.attrValue.trim();
  if (REFERENCE_ATTRIBUTES.has(name) && !value.startsWith('#')) data.keepAttr = false;
  if (EXTERNAL_URL.test(value)) data.keepAttr = false;
});

const CONFIG: Config & { RETURN_DOM_FRAGMENT: true } = {
  USE_PROFILES: { svg: true, svgFilters: true },
  FORBID_TAGS: ['style', 'image', 'feImage', 'foreignObject', 'script'],
  FORBID_ATTR: ['style'],
  RETURN_DOM_FRAGMENT: true,
};

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * The sanitised SVG markup, or null when what is left is not a single `<svg>` element
 * (the caller answers 400).
 */
export function sanitizeIconSvg(input: string): string | null {
  const fragment = purify.sanitize(input, CONFIG);
  const elements = Array.from(fragment.children);
  const root = elements[0];
  if (elements.length !== 1 || !root || root.localName !== 'svg' || root.namespaceURI !== SVG_NS)
    return null;
  // Standalone use (e.g. as a data: URL in <img>) needs the namespace declared.
  if (!root.hasAttribute('xmlns')) root.setAttribute('xmlns', SVG_NS);
  return root.outerHTML;
}
