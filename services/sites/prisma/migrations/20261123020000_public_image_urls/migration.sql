-- Icon and image URLs taken from scraped pages are shown to every visitor's browser: only
-- public http(s) destinations may stay (the URL policy of @svc/safe-fetch, applied by the
-- scraper from now on). This nulls the ones stored before that rule. Stored URLs were
-- serialised by the WHATWG parser (lower-case host, IPv4 in dotted decimal, IPv6 compressed
-- in brackets), so the host is read with a pattern and judged with inet ranges: the
-- non-public ranges of ipaddr.js that the policy uses, names that can only be local
-- (localhost, local, arpa, internal, localdomain, intranet, private, corp, home, lan) and
-- single-label names. IPv4-mapped IPv6 hosts count as not public (conservative).
-- The helper exists only during this migration. No semicolon may appear inside a statement
-- or comment of this file (the pg adapter splits scripts on semicolons).
CREATE FUNCTION svc_migration_public_http_url(u text) RETURNS boolean
LANGUAGE sql IMMUTABLE
RETURN (
  SELECT CASE
    WHEN h IS NULL OR h = '' THEN false
    WHEN h LIKE '[%' THEN
      CASE WHEN btrim(h, '[]') ~ '^[0-9a-f:.]+$' THEN
        btrim(h, '[]')::inet <<= '2000::/3'::inet
        AND NOT btrim(h, '[]')::inet <<= ANY (ARRAY['2001::/23', '2001:db8::/32', '2002::/16',
          '2620:4f:8000::/48', '3fff::/20']::inet[])
      ELSE false END
    WHEN h ~ '^[0-9]{1,3}(\.[0-9]{1,3}){3}$' THEN
      NOT h::inet <<= ANY (ARRAY['0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8',
        '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24', '192.0.2.0/24', '192.31.196.0/24',
        '192.52.193.0/24', '192.88.99.0/24', '192.168.0.0/16', '192.175.48.0/24',
        '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/3']::inet[])
    WHEN position('.' IN rtrim(h, '.')) = 0 THEN false
    WHEN substring(rtrim(h, '.') FROM '[^.]+$') IN ('localhost', 'local', 'arpa', 'internal',
      'localdomain', 'intranet', 'private', 'corp', 'home', 'lan') THEN false
    ELSE true
  END
  FROM (SELECT lower(substring(u FROM '^[hH][tT][tT][pP][sS]?://(?:[^/?#]*@)?(\[[^]/?#]*\]|[^/?#:]*)')) AS h) AS parts
);

UPDATE sites SET favicon_url = NULL
WHERE favicon_url IS NOT NULL AND NOT svc_migration_public_http_url(favicon_url);

UPDATE sites SET og_image_url = NULL
WHERE og_image_url IS NOT NULL AND NOT svc_migration_public_http_url(og_image_url);

DROP FUNCTION svc_migration_public_http_url(text);
