// The claim check: does the page's <head> carry <meta name="svc-verify" content="{id}">?
// Parsed with htmlparser2 (a real tokenizer: comments, attribute quoting and case are
// handled), never with a regular expression.
import { Parser } from 'htmlparser2';
import { CLAIM_META_NAME } from '@svc/types';

/**
 * True when a `<meta name="svc-verify">` inside `<head>` (or before `<body>`, where
 * browsers put head content of pages that omit the tag) has content equal to `siteId`.
 */
export function hasClaimMeta(html: string, siteId: string): boolean {
  let found = false;
  let inBody = false;
  let headClosed = false;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'body') inBody = true;
        if (found || inBody || headClosed || name !== 'meta') return;
        if (
          (attrs.name ?? '').trim().toLowerCase() === CLAIM_META_NAME &&
          (attrs.content ?? '').trim() === siteId
        ) {
          found = true;
        }
      },
      onclosetag(name) {
        if (name === 'head') headClosed = true;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return found;
}
