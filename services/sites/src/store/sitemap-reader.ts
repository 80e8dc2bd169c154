// The sitemap's reads (routes/sitemap-routes.ts), on the plain pg pool like the listing's:
// up to 50 000 rows a file, read as plain rows rather than mapped by Prisma's client (the
// listing measured that mapping as its main cost in Node, site-list-reader.ts).
// A file of an index is one range of sites_sitemap_idx (hashtext(id), id and
// last_activity_at of visible sites): an index-only scan of the file's own sites.
import type pg from 'pg';

export interface SitemapSite {
  id: string;
  lastActivityAt: Date;
}

export interface SitemapReader {
  /** Visible sites, hottest first, at most `limit`: the one-file sitemap. */
  hottest(limit: number): Promise<SitemapSite[]>;
  /** Visible sites with hashtext(id) in [from, to), in that order, at most `limit`. */
  hashRange(range: { from: number; to: number }, limit: number): Promise<SitemapSite[]>;
}

interface Row {
  id: string;
  last_activity_at: Date;
}

const toSite = (r: Row): SitemapSite => ({ id: r.id, lastActivityAt: r.last_activity_at });

/** `timestamp(3)` holds UTC: read it as such whatever the session's zone. */
const LAST_ACTIVITY = `s.last_activity_at AT TIME ZONE 'UTC' AS last_activity_at`;

export function createSitemapReader(pool: pg.Pool): SitemapReader {
  return {
    async hottest(limit) {
      const res = await pool.query<Row>({
        name: 'sitemap_hottest',
        text: `SELECT s.id, ${LAST_ACTIVITY} FROM sites s WHERE s.hidden_at IS NULL ORDER BY s.hot_score DESC, s.id LIMIT $1`,
        values: [limit],
      });
      return res.rows.map(toSite);
    },
    async hashRange({ from, to }, limit) {
      const res = await pool.query<Row>({
        name: 'sitemap_hash_range',
        text:
          `SELECT s.id, ${LAST_ACTIVITY} FROM sites s WHERE s.hidden_at IS NULL ` +
          `AND hashtext(s.id) >= $1::int8 AND hashtext(s.id) < $2::int8 ORDER BY hashtext(s.id), s.id LIMIT $3`,
        values: [from, to, limit],
      });
      return res.rows.map(toSite);
    },
  };
}
