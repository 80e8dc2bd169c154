#!/usr/bin/env node
// Seeds the sites benchmark database: N sites (default 100 000) made by one
// generate_series INSERT, in the `sites` schema of DATABASE_URL (default
// postgresql://postgres@127.0.0.1:5432/svc_bench). Re-runnable: applies the migrations
// when the schema is new, and re-seeds only when the table does not hold exactly the
// seeded rows. Usage: node bench/sites-seed.mjs [--count 100000] [--force]
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BENCH_DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc_bench';
export const BENCH_SCHEMA = 'sites';

const psql = (sql) =>
  execFileSync('psql', [BENCH_DATABASE_URL, '-v', 'ON_ERROR_STOP=1', '-qAt', '-c', `SET search_path TO ${BENCH_SCHEMA}`, '-c', sql], {
    encoding: 'utf8',
  }).trim();

/** Words the titles and descriptions are made of (Latin and Chinese), so searches hit ~2–4 %. */
const WORDS = ['design', 'tools', 'music', 'travel', 'code', 'cloud', 'photo', 'games', 'news', 'learn', 'market', 'health', 'food', 'sport', 'video', 'data', 'money', 'books', 'art', 'home', 'style', 'film', 'space', 'green', 'craft', 'pixel', 'maker', 'open', 'smart', 'quick', 'daily', 'world', 'local', 'deep', 'fresh', 'prime', 'nova', 'atlas', 'orbit', 'spark', 'delta', 'river', 'stone', 'cedar', 'maple', 'coral', 'amber', 'ivory', 'lunar', 'solar'];
const CJK = ['设计', '工具', '音乐', '旅行', '编程', '云服务', '摄影', '游戏', '新闻', '学习', '市场', '健康', '美食', '运动', '视频', '数据', '理财', '读书', '艺术', '生活'];
const TAGS = ['工具', '技术', '设计', '新闻', '社区', '学习', '娱乐', '资源', '商业', '生活', '社交'];
const arr = (xs) => `ARRAY[${xs.map((x) => `'${x}'`).join(',')}]::text[]`;

export async function seedSites({ count = 100_000, force = false } = {}) {
  const kit = await import(pathToFileURL(path.join(ROOT, 'packages/service-kit/dist/index.js')).href);
  const target = kit.resolveDatabaseTarget(undefined, BENCH_DATABASE_URL, BENCH_SCHEMA);
  await kit.ensureDatabaseAndSchema(target);
  const hasTable = psql(`SELECT to_regclass('${BENCH_SCHEMA}.sites') IS NOT NULL`) === 't';
  if (!hasTable) await kit.applyMigrationSql(target, path.join(ROOT, 'services/sites/prisma/migrations'));
  const seeded = Number(psql(`SELECT count(*) FROM sites WHERE id LIKE 'bench-%'`));
  const all = Number(psql('SELECT count(*) FROM sites'));
  if (!force && seeded === count && all === count) return { count, seeded: false };

  const started = Date.now();
  psql(`SET client_min_messages = warning; TRUNCATE sites CASCADE;
    INSERT INTO sites (id, url, title, description, domain, tags, submit_count, click_count, boost_count,
                       first_submitted_at, last_activity_at, scrape_status)
    SELECT 'bench-' || lpad(i::text, 7, '0'),
           'https://site-' || i || '.example.com/',
           initcap(w[1 + i % 50]) || ' ' || initcap(w[1 + (i / 50) % 50]) || ' ' || c[1 + i % 20],
           'A ' || w[1 + (i / 7) % 50] || ' site about ' || w[1 + (i / 13) % 50] || ' and ' || c[1 + (i / 3) % 20] || '的' || c[1 + (i / 11) % 20],
           'site-' || i || '.example.com',
           CASE WHEN i % 3 = 0 THEN ARRAY[t[1 + i % 11]] ELSE ARRAY[t[1 + i % 11], t[1 + (i / 11) % 11]] END,
           1 + i % 7, (i * 7919) % 500, CASE WHEN i % 13 = 0 THEN i % 5 ELSE 0 END,
           ts, ts, 'done'
    FROM generate_series(1, ${count}) AS i,
         LATERAL (SELECT ${arr(WORDS)} AS w, ${arr(CJK)} AS c, ${arr(TAGS)} AS t,
                         (TIMESTAMP '2026-11-21 00:00:00' - (i * interval '37 seconds')) AS ts) AS v
    -- (i / 11) % 11 can equal i % 11: keep the tags distinct
    ;
    UPDATE sites SET tags = ARRAY[tags[1]] WHERE cardinality(tags) = 2 AND tags[1] = tags[2];`);
  psql('VACUUM ANALYZE sites');
  return { count, seeded: true, ms: Date.now() - started };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const i = process.argv.indexOf('--count');
  const count = i === -1 ? 100_000 : Number(process.argv[i + 1]);
  seedSites({ count, force: process.argv.includes('--force') }).then(
    (r) => console.log(r.seeded ? `seeded ${r.count} sites in ${r.ms} ms` : `${r.count} sites already seeded`),
    (err) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
