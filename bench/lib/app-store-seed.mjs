// Seeding of the app-store benchmark data: N apps (default 100 000) made by one INSERT …
// SELECT over generate_series into a given schema (migrations of services/app-store applied
// first), identical every run (setseed). Shared by bench/app-store.mjs and bench/web.mjs.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SERVICE = path.join(ROOT, 'services', 'app-store');

/** 300 English words: each app's name, description and tags draw ~12 of them. */
const WORDS = (
  'calendar notes wallet chess weather photo music budget tracker editor chat video map timer ' +
  'quiz recipe fitness reader translator scanner planner diary garden travel ticket invoice ' +
  'crypto token swap bridge stake vault lending market auction gallery canvas sketch pixel ' +
  'vector font color palette theme widget dashboard report chart graph table sheet form survey ' +
  'poll vote forum board wiki docs manual guide tutorial course lesson flashcard dictionary ' +
  'grammar spelling math physics chemistry biology history geography language coding terminal ' +
  'shell script compiler debugger linter formatter snippet gist paste clipboard bookmark reader ' +
  'podcast radio stream player playlist karaoke lyrics guitar piano drum metronome tuner ' +
  'recorder camera filter collage meme sticker emoji avatar profile contact email inbox ' +
  'calendar meeting schedule reminder alarm clock stopwatch countdown habit goal journal mood ' +
  'sleep water diet calorie running cycling yoga meditation breathing health doctor pharmacy ' +
  'bank loan mortgage tax salary expense receipt coupon deal shop cart order delivery ' +
  'restaurant menu coffee tea wine beer cocktail bakery pizza sushi burger salad soup ' +
  'movie series anime comic novel poetry story puzzle sudoku crossword solitaire poker ' +
  'racing shooter strategy tower defense farm city builder sandbox survival arcade retro ' +
  'space rocket planet star telescope satellite drone robot sensor home light thermostat ' +
  'security password vpn firewall backup sync cloud storage upload download share transfer ' +
  'news headline feed digest newsletter blog vlog social friend follow group event party ' +
  'dating wedding baby parent school teacher student homework exam grade campus library ' +
  'job resume career interview freelance project task kanban sprint agile team workspace ' +
  'nft mint collectible marketplace dao governance oracle explorer faucet airdrop validator ' +
  'node miner ledger block chain gas fee yield farm pool liquidity lottery raffle bingo ' +
  'trivia riddle maze labyrinth escape adventure quest dragon knight castle kingdom empire ' +
  'ocean river mountain forest desert island volcano storm rainbow sunset aurora comet'
)
  .split(/\s+/)
  .filter((w, i, all) => w && all.indexOf(w) === i)
  .slice(0, 300);
const CJK = [
  '计算器',
  '天气预报',
  '记账本',
  '翻译工具',
  '音乐播放器',
  'カレンダー',
  '家計簿',
  '메모장',
  '날씨',
  '사진편집',
];
export const SEARCH_WORD = 'chess';
export const SEARCH_CJK = '天气';

function sqlArray(words) {
  return `ARRAY[${words.map((w) => `'${w.replace(/'/g, "''")}'`).join(',')}]::text[]`;
}

/**
 * Drops and re-creates `schema` (a connected pg Client's database), applies the app-store
 * migrations and inserts `rows` apps; leaves the client's search_path on `schema`.
 * Returns the milliseconds it took.
 */
export async function seedApps(pg, rows, schema) {
  const t0 = Date.now();
  await pg.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pg.query(`CREATE SCHEMA ${schema}`);
  await pg.query(`SET search_path TO ${schema}`);
  const migrations = path.join(SERVICE, 'prisma', 'migrations');
  for (const dir of readdirSync(migrations, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()) {
    await pg.query(readFileSync(path.join(migrations, dir, 'migration.sql'), 'utf8'));
  }
  const n = WORDS.length;
  // One INSERT ... SELECT over generate_series; setseed makes the data the same every run.
  // search_document is computed by PostgreSQL (generated column) as for real submissions.
  await pg.query('SELECT setseed(0.42)');
  await pg.query(
    `
    INSERT INTO apps (id, slug, name, description, url, category, app_type, open_mode, status,
                      downloads, author_id, author_name, tech_tags, created_at, updated_at)
    SELECT 'bench_' || g.i,
           'bench-app-' || g.i,
           initcap(w.words[1 + floor(random() * ${n})::int]) || ' ' || initcap(w.words[1 + floor(random() * ${n})::int]) || ' ' || g.i,
           array_to_string(ARRAY(SELECT w.words[1 + floor(random() * ${n})::int] FROM generate_series(1, 6 + g.i % 5)), ' ')
             || CASE WHEN g.i % 10 = 0 THEN ' ' || c.words[1 + (g.i / 10) % ${CJK.length}] ELSE '' END,
           'https://app-' || g.i || '.example.com',
           (enum_range(NULL::app_category))[1 + g.i % 12],
           (enum_range(NULL::app_type))[1 + g.i % 3],
           (enum_range(NULL::app_open_mode))[1 + g.i % 2],
           CASE WHEN g.i % 50 = 0 THEN 'blocked'::app_status ELSE 'approved'::app_status END,
           floor(power(random(), 3) * 100000)::int,
           'bench-author-' || (g.i % 1000),
           'author' || (g.i % 1000),
           ARRAY[w.words[1 + floor(random() * ${n})::int], w.words[1 + floor(random() * ${n})::int]],
           now() - make_interval(secs => g.i),
           now()
    FROM generate_series(1, $1::int) AS g(i),
         (SELECT ${sqlArray(WORDS)} AS words) AS w,
         (SELECT ${sqlArray(CJK)} AS words) AS c`,
    [rows],
  );
  await pg.query('VACUUM ANALYZE apps');
  return Date.now() - t0;
}

/** True when `schema` holds exactly the `rows` seeded apps (seedApps can be skipped). */
export async function appsSeeded(pg, rows, schema) {
  const { rows: r } = await pg.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [
    `${schema}.apps`,
  ]);
  if (!r[0].present) return false;
  const { rows: c } = await pg.query(
    `SELECT count(*)::int AS total, count(*) FILTER (WHERE id LIKE 'bench\\_%')::int AS seeded FROM ${schema}.apps`,
  );
  return c[0].total === rows && c[0].seeded === rows;
}
