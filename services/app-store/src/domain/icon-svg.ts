// icon_svg checking (docs/decisions/004-app-store-rules.md): no scripts, no event handlers, no external references.
// The icon is stored exactly as its author sent it, so nothing is rewritten: an icon is
// either accepted as is or refused with the problem named (400). The markup is parsed the
// way a browser parses inline SVG (jsdom, HTML parser) and every element and attribute is
// walked; DOMPurify (SVG profile) then gives a second opinion on script-like content, so
// a parser trick the walk misses is still refused.
import createDOMPurify, { type Config } from 'dompurify';
import { JSDOM } from 'jsdom';

const { window } = new JSDOM('');
const purify = createDOMPurify(window as unknown as Parameters<typeof createDOMPurify>[0]);
const PURIFY_CONFIG: Config & { RETURN_DOM_FRAGMENT: true } = {
  USE_PROFILES: { svg: true, svgFilters: true },
  RETURN_DOM_FRAGMENT: true,
};

const SVG_NS = 'http://www.w3.org/2000/svg';
/** Elements that run code or embed another document. */
const FORBIDDEN_ELEMENTS = new Set(['script', 'foreignobject', 'iframe', 'embed', 'object', 'handler']);
const REFERENCE_ATTRIBUTES = new Set(['href', 'xlink:href', 'src']);
const ANIMATIONS = new Set(['set', 'animate', 'animatetransform', 'animatemotion']);
/** `url(` not followed by a local fragment reference. */
const EXTERNAL_URL = /url\s*\(\s*(?!['"]?\s*#)/i;
const SCRIPT_URL = /^\s*(javascript|vbscript|data)\s*:/i;

export const NOT_AN_SVG = 'icon_svg must be an SVG image (a single <svg> element)';
export const UNFINISHED =
  'icon_svg is unsafe: it ends inside a tag, an attribute, a comment or a CDATA section';

/** Appended to the markup by `isFinished`: an HTML element, so it also leaves SVG content. */
const SENTINEL = '<i></i>';

/**
 * Whether `input` (whose fragment has `elements` elements) ends between tags. A parser drops
 * a tag still open at the end of its input (`<svg></svg><a onload="x()"`), so the walk never
 * sees it; but markup placed after the stored icon (a page it is inlined into) would finish
 * that tag, handler and all. Finished markup followed by the sentinel parses to one element
 * more, the sentinel itself, last; unfinished markup swallows it into a tag, an attribute
 * value, a comment or a CDATA section.
 */
function isFinished(input: string, elements: number): boolean {
  const all = JSDOM.fragment(input + SENTINEL).querySelectorAll('*');
  const last = all[all.length - 1];
  return all.length === elements + 1 && last?.localName === 'i' && last.attributes.length === 0;
}

/** Why `input` cannot be stored as an app icon, or null when it can (unchanged). */
export function iconSvgProblem(input: string): string | null {
  const fragment = JSDOM.fragment(input);
  const roots = Array.from(fragment.children);
  const root = roots[0];
  const strayText = Array.from(fragment.childNodes).some(
    (n) => n.nodeType === 3 /* text */ && n.textContent!.trim() !== '',
  );
  if (roots.length !== 1 || !root || strayText || root.localName !== 'svg' || root.namespaceURI !== SVG_NS)
    return NOT_AN_SVG;
  const descendants = Array.from(root.querySelectorAll('*'));
  if (!isFinished(input, 1 + descendants.length)) return UNFINISHED;

  for (const el of [root, ...descendants]) {
    const name = el.localName.toLowerCase();
    const where = `<${el.localName}>`;
    if (FORBIDDEN_ELEMENTS.has(name)) return unsafe(`${where} elements are not allowed`);
    if (el.namespaceURI !== SVG_NS) return unsafe(`${where} is not an SVG element`);
    if (name === 'style' && (EXTERNAL_URL.test(el.textContent ?? '') || /@import/i.test(el.textContent ?? '')))
      return unsafe(`<style> with an external reference (@import or url() other than url(#id))`);
    for (const attr of Array.from(el.attributes)) {
      const attrName = attr.name.toLowerCase();
      const value = attr.value.trim();
      if (attrName.startsWith('on')) return unsafe(`event handler attribute ${attr.name} on ${where}`);
      if (REFERENCE_ATTRIBUTES.has(attrName) && !value.startsWith('#'))
        return unsafe(`external reference in ${attr.name} on ${where} (only #id references are allowed)`);
      if (EXTERNAL_URL.test(value))
        return unsafe(`external reference in ${attr.name} on ${where} (only url(#id) is allowed)`);
      if (attrName === 'style' && /@import/i.test(value)) return unsafe(`@import in style on ${where}`);
      if (SCRIPT_URL.test(value)) return unsafe(`script or data URL in ${attr.name} on ${where}`);
      if (ANIMATIONS.has(name) && attrName === 'attributename' && /^(on|href$|xlink:href$)/i.test(value))
        return unsafe(`${where} animating ${attr.value}`);
    }
  }

  // Second opinion: anything script-like DOMPurify would remove is refused too.
  purify.sanitize(input, PURIFY_CONFIG);
  for (const removed of purify.removed as Array<{ element?: Node; attribute?: Attr | null }>) {
    const elementName = removed.element?.nodeName.toLowerCase();
    if (elementName && FORBIDDEN_ELEMENTS.has(elementName))
      return unsafe(`<${elementName}> elements are not allowed`);
    const attribute = removed.attribute;
    if (attribute && (/^on/i.test(attribute.name) || SCRIPT_URL.test(attribute.value)))
      return unsafe(`${attribute.name} attribute is not allowed`);
  }
  return null;
}

const unsafe = (what: string) => `icon_svg is unsafe: ${what}`;
