// Decode an HTML body the way browsers pick its encoding (simplified WHATWG sniffing):
// a byte-order mark, then the Content-Type charset, then a <meta> declaration in the
// first 1024 bytes, else UTF-8. TextDecoder (Node's full ICU) knows GBK, GB18030, Big5,
// Shift_JIS, EUC-KR, windows-125x, ... by their WHATWG labels; an unknown label falls
// back to UTF-8 and undecodable bytes become U+FFFD rather than an error.

const META_SCAN_BYTES = 1024;
const META_CHARSET = /<meta\b[^>]*?charset\s*=\s*["']?\s*([a-zA-Z0-9._:-]+)/i;

export function charsetFromContentType(contentType: string | undefined): string | undefined {
  const match = contentType && /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType);
  return match ? match[1] : undefined;
}

/** The charset declared by a `<meta charset>` or `<meta http-equiv content="...charset=">`. */
export function charsetFromMeta(body: Uint8Array): string | undefined {
  const head = Buffer.from(body.subarray(0, META_SCAN_BYTES)).toString('latin1');
  const match = META_CHARSET.exec(head);
  if (!match?.[1]) return undefined;
  // A meta tag can only be read because the page is ASCII-compatible: UTF-16 there means UTF-8.
  return /^utf-?16/i.test(match[1]) ? 'utf-8' : match[1];
}

function bomCharset(body: Uint8Array): string | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  return undefined;
}

function decoderFor(label: string | undefined): TextDecoder | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label.trim().toLowerCase());
  } catch {
    return undefined; // unknown label (RangeError)
  }
}

export function decodeHtml(
  body: Uint8Array,
  contentType?: string,
): { html: string; charset: string } {
  const decoder =
    decoderFor(bomCharset(body)) ??
    decoderFor(charsetFromContentType(contentType)) ??
    decoderFor(charsetFromMeta(body)) ??
    new TextDecoder('utf-8');
  return { html: decoder.decode(body), charset: decoder.encoding };
}
