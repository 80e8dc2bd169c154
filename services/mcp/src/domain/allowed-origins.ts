// Which browser origins may call /mcp. The MCP transport asks servers to check `Origin`
// (a page on another site must not drive an agent's server through the reader's browser);
// a request without one comes from a program (an agent, an IDE), not a page, and passes.

/**
 * Parses MCP_ALLOWED_ORIGINS: comma-separated origins, each `http(s)://host[:port]` with no
 * path, query, fragment or credentials. Returns the browsers' serialization (lower-case
 * host, default port dropped), what an `Origin` header carries. Throws on a bad entry.
 */
export function parseAllowedOrigins(raw: string | undefined): string[] {
  const out: string[] = [];
  for (const entry of (raw ?? '').split(',')) {
    const value = entry.trim();
    if (value === '') continue;
    const url = URL.canParse(value) ? new URL(value) : undefined;
    const bare = /^https?:\/\/[^/?#@]+$/i.test(value);
    if (!url || !bare || url.origin === 'null')
      throw new Error(`"${value}" is not an origin: give scheme://host[:port], http or https, without a path`);
    if (!out.includes(url.origin)) out.push(url.origin);
  }
  return out;
}

/** May a request with this `Origin` header (undefined: none) use the server? */
export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  return origin === undefined || allowed.includes(origin);
}
