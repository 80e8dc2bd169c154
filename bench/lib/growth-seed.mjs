// Seeding of the growth benchmark (bench/growth.mjs): sites, apps and chat messages at a
// given size, each in its own schema of one database, made inside PostgreSQL by one
// INSERT … SELECT over generate_series (no row travels from Node). A seeded schema is kept
// between runs: it records what it holds (kind, rows, seed version, how long it took) in
// `growth_seed`, and which migrations it has in `growth_migrations`, so a later run applies
// only the migrations added since (a new index) and says how long they took.
//
// The data, deterministic (setseed) and shaped like a grown service:
// - words: a Latin vocabulary (200 common words, then pseudo-words of three syllables) and a
//   Chinese one (about 150 words), each drawn by rank with P(rank = k) ∝ ln((k+1)/k), a
//   Zipf law of exponent 1: the 12th Latin word is in about one site in ten, a word of rank
//   12,000 in about one site in ten thousand;
// - sites: 35 % Chinese titles and descriptions, the rest Latin (a tenth with a Chinese
//   phrase too), 1–3 of the 11 tags (skewed), clicks from a power law (hot scores skewed),
//   submissions spread over three years, denser lately; 3 % profiles, 0.1 % hidden;
// - apps: the same vocabularies, downloads from a power law, 2 % blocked;
// - messages: 29 days of chat (inside the 30-day retention), 2 % system and entrance
//   messages, 0.5 % deleted by a moderator.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Bumped when the seeded data changes shape: a schema seeded by another version is re-seeded. */
export const SEED_VERSION = 1;

/** Which service's migrations and table each kind of data uses. */
export const KINDS = {
  sites: { service: 'sites', table: 'sites' },
  apps: { service: 'app-store', table: 'apps' },
  messages: { service: 'chat', table: 'messages' },
};

// ---------------------------------------------------------------- vocabularies

/** Common words of site and app titles, most frequent first. */
const COMMON = (
  'online free best app web tools guide design home news blog learn music video photo game ' +
  'studio cloud code data market shop travel food health sport money book art style open ' +
  'smart daily world local social digital global simple fast easy pro mobile live hub lab ' +
  'space city green club team work life house store center network media school event ' +
  'project story system service solution platform community library gallery journal forum ' +
  'academy agency camera coffee garden kitchen fitness finance crypto chess puzzle weather ' +
  'planner budget recipe podcast radio movie anime comic novel poetry course lesson tutorial ' +
  'dictionary language coding terminal script editor notes calendar wallet tracker timer ' +
  'quiz reader scanner diary ticket invoice auction canvas sketch pixel vector font color ' +
  'theme widget dashboard report chart graph survey wiki docs manual career resume job ' +
  'interview freelance startup venture invest trading stock bank loan insurance tax salary ' +
  'rent estate hotel flight cruise island mountain ocean river forest desert beach sunset ' +
  'aurora comet planet rocket robot drone sensor laptop phone tablet watch keyboard mouse ' +
  'printer router server linux windows android'
).split(/\s+/);

/** Three-letter syllables (consonant, vowel, consonant): pseudo-words of equal length, so none is a prefix of another. */
const C1 = 'bdfgklmnprstvz'.split('');
const V = 'aeiou'.split('');
const C2 = 'klmnrstx'.split('');

/** The Latin vocabulary by rank (1-based in SQL): COMMON, then pseudo-words up to `size`. */
export function latinVocabulary(size = 20_000) {
  const syllables = [];
  for (const a of C1) for (const b of V) for (const c of C2) syllables.push(a + b + c);
  const words = [...COMMON];
  // Deterministic walk over syllable triples (a stride coprime to the count mixes them).
  const n = syllables.length;
  for (let k = 0; words.length < size; k++) {
    const x = (k * 7919) % (n * n * n);
    words.push(syllables[x % n] + syllables[Math.floor(x / n) % n] + syllables[Math.floor(x / (n * n)) % n]);
  }
  return words;
}

/** Chinese words, most frequent first (2 characters mostly, a few of 3–4). */
export const CHINESE = (
  '网站 工具 在线 免费 设计 学习 生活 音乐 视频 新闻 旅行 美食 游戏 技术 编程 摄影 健康 运动 ' +
  '读书 电影 艺术 科技 数据 市场 商业 社区 资源 教程 分享 平台 服务 智能 手机 电脑 软件 应用 ' +
  '开发 前端 后端 云端 安全 隐私 博客 论坛 图片 壁纸 字体 颜色 模板 插件 翻译 词典 英语 日语 ' +
  '考试 课程 大学 留学 求职 简历 面试 职场 创业 投资 理财 股票 基金 保险 房产 装修 家居 汽车 ' +
  '宠物 植物 花园 咖啡 茶叶 烘焙 菜谱 健身 瑜伽 跑步 骑行 登山 露营 滑雪 海边 城市 乡村 地图 ' +
  '天气 日历 笔记 效率 待办 时间 计划 预算 账本 购物 折扣 优惠 外卖 快递 酒店 机票 火车 景点 ' +
  '攻略 博物馆 图书馆 动漫 漫画 小说 诗歌 历史 哲学 心理 医学 化学 物理 数学 天文 地理 环保 ' +
  '公益 志愿者 儿童 教育 家庭 婚礼 聚会 节日 春节 中秋 美妆 护肤 穿搭 时尚 手工 绘画 书法 ' +
  '乐器 钢琴 吉他 播客 直播 短视频 人工智能 区块链'
).split(/\s+/);

/** The 11 tags of the sites catalogue (packages/types SITE_TAGS), most used first. */
export const SITE_TAGS = ['工具', '技术', '资源', '学习', '设计', '生活', '新闻', '娱乐', '社区', '商业', '社交'];

/** The search terms of the benchmark and their place in the vocabularies. */
export function searchTerms(latin = latinVocabulary()) {
  return {
    /** Rank 12 of the Latin words: in about one site in ten. */
    common: latin[11],
    /** A pseudo-word of rank 12,000: in about one site in ten thousand. */
    rare: latin[11_999],
    /** Rank 11 of the Chinese words (旅行, "travel"): two characters, one CJK bigram. */
    chinese: CHINESE[10],
  };
}

const sqlArray = (xs) => `ARRAY[${xs.map((x) => `'${x.replace(/'/g, "''")}'`).join(',')}]::text[]`;
/**
 * A vocabulary as `name[]`: fixed-width elements, so `arr[k]` is one offset, where a
 * `text[]` is walked element by element up to k (15× slower seeding).
 */
const nameArray = (xs) => `ARRAY[${xs.map((x) => `'${x.replace(/'/g, "''")}'`).join(',')}]::name[]`;

/** A Zipf(1) rank in 1..n from one random(): floor(exp(u · ln(n + 1))). */
const zipf = (n) => `floor(exp(random() * ln(${n} + 1)))::int`;
/** One word of `arr` (a name[] of length `n`) as text. */
const word = (arr, n) => `${arr}[${zipf(n)}]::text`;
/** `count` words of `arr`, joined by `sep`; `corr` ties the subquery to the row. */
const words = (arr, n, count, sep, corr) =>
  `array_to_string(ARRAY(SELECT ${word(arr, n)} FROM generate_series(1, ${count} + 0 * ${corr})), '${sep}')`;

// ---------------------------------------------------------------- schema bookkeeping

const migrationsDir = (service) => path.join(ROOT, 'services', service, 'prisma', 'migrations');
const migrationNames = (service) =>
  readdirSync(migrationsDir(service), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();

/** The statements of a migration file, cut as `prisma migrate deploy` cuts them (the kit's splitLikePrismaMigrate). */
const statements = (sql) =>
  sql
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean);

async function applyMigration(pg, service, name) {
  const t0 = Date.now();
  for (const s of statements(readFileSync(path.join(migrationsDir(service), name, 'migration.sql'), 'utf8'))) {
    await pg.query(s);
  }
  const seconds = (Date.now() - t0) / 1000;
  await pg.query('INSERT INTO growth_migrations (name, seconds) VALUES ($1, $2)', [name, seconds]);
  return seconds;
}

/** What a kept schema holds, or null when it holds nothing usable. */
export async function seedState(pg, schema) {
  const { rows } = await pg.query('SELECT to_regclass($1) IS NOT NULL AS present', [`${schema}.growth_seed`]);
  if (!rows[0].present) return null;
  const r = await pg.query(`SELECT kind, rows, version, seconds, seeded_at FROM ${schema}.growth_seed`);
  return r.rows[0] ?? null;
}

/**
 * Applies to a kept schema the migrations of its service it does not have yet; returns
 * `[{ name, seconds }]` of those applied now. Leaves search_path on the schema.
 */
export async function migrateKept(pg, schema, kind) {
  await pg.query(`SET search_path TO ${schema}`);
  const done = new Set((await pg.query('SELECT name FROM growth_migrations')).rows.map((r) => r.name));
  const applied = [];
  for (const name of migrationNames(KINDS[kind].service)) {
    if (done.has(name)) continue;
    applied.push({ name, seconds: await applyMigration(pg, KINDS[kind].service, name) });
  }
  if (applied.length) await pg.query(`ANALYZE ${KINDS[kind].table}`);
  return applied;
}

/**
 * Runs `fill` with the table's indexes and keys dropped, then builds them again from their
 * own definitions: one sorted build per index instead of millions of random insertions.
 */
async function withoutIndexes(pg, table, fill) {
  const { rows: fks } = await pg.query(
    `SELECT conrelid::regclass::text AS owner, conname, pg_get_constraintdef(oid) AS def
     FROM pg_constraint WHERE contype = 'f' AND confrelid = $1::regclass`,
    [table],
  );
  const { rows: keys } = await pg.query(
    `SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
     WHERE conrelid = $1::regclass AND contype IN ('p', 'u')`,
    [table],
  );
  const { rows: indexes } = await pg.query(
    `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def FROM pg_index i
     JOIN pg_class c ON c.oid = i.indexrelid
     WHERE i.indrelid = $1::regclass
       AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)`,
    [table],
  );
  for (const f of fks) await pg.query(`ALTER TABLE ${f.owner} DROP CONSTRAINT "${f.conname}"`);
  for (const k of keys) await pg.query(`ALTER TABLE ${table} DROP CONSTRAINT "${k.conname}"`);
  for (const i of indexes) await pg.query(`DROP INDEX "${i.name}"`);
  await fill();
  for (const k of keys) await pg.query(`ALTER TABLE ${table} ADD CONSTRAINT "${k.conname}" ${k.def}`);
  for (const i of indexes) await pg.query(i.def);
  for (const f of fks) await pg.query(`ALTER TABLE ${f.owner} ADD CONSTRAINT "${f.conname}" ${f.def}`);
}

// ---------------------------------------------------------------- the data

const T0 = `TIMESTAMP '2026-11-20 00:00:00'`;

function sitesInsert(rows, latin) {
  const L = latin.length;
  const C = CHINESE.length;
  const id = (salt) => `substr(translate(encode(sha224(('${salt}' || i)::bytea), 'base64'), '+/=', 'xyz'), 1, 21)`;
  return `
    INSERT INTO sites (id, url, title, description, favicon_url, og_image_url, domain, tags,
                       submit_count, click_count, boost_count, site_type, social_platform,
                       social_username, first_submitted_at, last_activity_at, scrape_status,
                       hidden_at, hidden_reason)
    SELECT ${id('site')}, x.url, x.title, x.description,
           CASE WHEN i % 4 <> 0 THEN 'https://' || x.host || '/favicon.ico' END,
           CASE WHEN i % 3 = 0 THEN 'https://' || x.host || '/og.png' END,
           x.host, x.tags,
           1 + floor(power(random(), 6) * 8)::int,
           least(floor(power(1 - random(), -1 / 1.1)) - 1, 5000000)::int,
           CASE WHEN i % 50 = 0 THEN 1 + i % 5 ELSE 0 END,
           CASE WHEN r.profile THEN 'profile' ELSE 'website' END::site_type,
           CASE WHEN r.profile THEN 'github' END::social_platform,
           CASE WHEN r.profile THEN 'user' || i END,
           x.at, x.at + (random() * interval '30 days'), 'done',
           CASE WHEN i % 1000 = 7 THEN x.at + interval '1 day' END,
           CASE WHEN i % 1000 = 7 THEN 'spam' END
    FROM generate_series(1, ${rows}) AS i,
         LATERAL (SELECT ${nameArray(latin)} AS w, ${nameArray(CHINESE)} AS c, ${nameArray(SITE_TAGS)} AS t) AS v,
         LATERAL (SELECT (i::bigint * 2654435761) % 100 < 35 AS zh, i % 33 = 0 AS profile,
                         ${word('v.w', L)} AS w1, ${word('v.w', L)} AS w2,
                         -- three years of submissions, denser lately (age ∝ u²)
                         ${T0} - power(random(), 2) * interval '1095 days' AS at) AS r,
         LATERAL (SELECT
           CASE WHEN r.profile THEN 'github.com' ELSE r.w1 || '-' || r.w2 || '-' || i || '.example.com' END AS host,
           CASE WHEN r.zh THEN ${words('v.c', C, '2 + i % 2', '', 'i')}
                ELSE initcap(${words('v.w', L, '2 + i % 3', ' ', 'i')}) END AS title,
           CASE WHEN r.zh THEN ${words('v.c', C, '6 + i % 5', '', 'i')} || '，' || ${words('v.c', C, '3 + i % 4', '', 'i')} || '。'
                ELSE ${words('v.w', L, '8 + i % 7', ' ', 'i')}
                     || CASE WHEN i % 10 = 1 THEN ' ' || ${words('v.c', C, '3', '', 'i')} ELSE '' END END AS description,
           ARRAY(SELECT DISTINCT ${word('v.t', 11)} FROM generate_series(1, 1 + (i * 7) % 3 + 0 * i)) AS tags
         ) AS x0,
         LATERAL (SELECT CASE WHEN r.profile THEN 'https://github.com/user' || i ELSE 'https://' || x0.host || '/' END AS url,
                         x0.host, x0.title, x0.description, x0.tags, r.at) AS x`;
}

function appsInsert(rows, latin) {
  const L = latin.length;
  const C = CHINESE.length;
  return `
    INSERT INTO apps (id, slug, name, description, url, category, app_type, open_mode, status,
                      downloads, author_id, author_name, tech_tags, icon_gradient_from,
                      icon_gradient_to, created_at, updated_at)
    SELECT 'g' || substr(md5('app' || i), 1, 20), 'app-' || i, x.name, x.description,
           'https://app-' || i || '.example.com',
           (enum_range(NULL::app_category))[1 + i % 12],
           (enum_range(NULL::app_type))[1 + i % 3],
           (enum_range(NULL::app_open_mode))[1 + i % 2],
           CASE WHEN i % 50 = 0 THEN 'blocked' ELSE 'approved' END::app_status,
           least(floor(power(1 - random(), -1 / 0.9)) - 1, 50000000)::int,
           'author-' || (i % 20000), 'author' || (i % 20000),
           ARRAY[${word('v.w', L)}, ${word('v.w', L)}],
           '#' || substr(md5('f' || i), 1, 6), '#' || substr(md5('t' || i), 1, 6),
           x.at, x.at
    FROM generate_series(1, ${rows}) AS i,
         LATERAL (SELECT ${nameArray(latin)} AS w, ${nameArray(CHINESE)} AS c) AS v,
         LATERAL (SELECT
           CASE WHEN i % 5 = 0 THEN ${words('v.c', C, '2', '', 'i')}
                ELSE initcap(${words('v.w', L, '2', ' ', 'i')}) END AS name,
           CASE WHEN i % 5 = 0 THEN ${words('v.c', C, '8 + i % 5', '', 'i')}
                ELSE ${words('v.w', L, '8 + i % 7', ' ', 'i')} END AS description,
           ${T0} - power(random(), 2) * interval '730 days' AS at) AS x`;
}

const CHAT_LINES = [
  'hello everyone',
  'has anyone tried the new chess app?',
  'this site is great',
  'good morning',
  '今天的网站很有意思',
  '大家好',
  'bonjour à tous',
  'こんにちは',
  '안녕하세요',
  'look at this one, it is really useful for learning',
  'where can I find a good weather app',
  '有没有好用的翻译工具',
  'thanks for sharing!',
  'guten Morgen',
  'lol',
  'which one is the best for travel planning?',
];

function messagesInsert(rows) {
  return `
    INSERT INTO messages (id, type, content, sender_name, sender_location, sender_user_id,
                          sender_ip_hash, like_count, created_at, deleted_at)
    SELECT substr(translate(encode(sha224(('msg' || i)::bytea), 'base64'), '+/=', 'xyz'), 1, 21),
           CASE WHEN i % 100 = 0 THEN 'system' WHEN i % 100 = 1 THEN 'entrance' ELSE 'chat' END::message_type,
           CASE WHEN i % 100 = 1 THEN 'joined the chat'
                ELSE l.lines[1 + (i * 7) % ${CHAT_LINES.length}] || CASE WHEN i % 3 = 0 THEN ' #' || (i % 997) ELSE '' END END,
           CASE WHEN i % 100 = 0 THEN 'System' WHEN i % 4 = 0 THEN 'user' || (i % 50000) ELSE 'Visitor from Paris ' || (i % 9973) END,
           CASE WHEN i % 4 <> 0 AND i % 100 > 1 THEN 'FR|Paris' END,
           CASE WHEN i % 4 = 0 AND i % 100 > 1 THEN 'u' || (i % 50000) END,
           CASE WHEN i % 4 <> 0 AND i % 100 > 1 THEN md5('ip' || (i % 200000)) END,
           least(floor(power(1 - random(), -1 / 1.5)) - 1, 1000)::int,
           c.at,
           CASE WHEN i % 200 = 3 THEN c.at + interval '5 minutes' END
    FROM generate_series(1, ${rows}) AS i,
         LATERAL (SELECT ${sqlArray(CHAT_LINES)} AS lines) AS l,
         -- 29 days of chat up to the seeding (the retention is 30), evenly spread
         LATERAL (SELECT now() - (i::float8 / ${rows}) * interval '29 days' AS at) AS c`;
}

/**
 * Drops and re-creates `schema` (of the database `pg` is connected to), applies its
 * service's migrations and seeds `rows` of `kind`. Returns the seconds it took.
 */
export async function seed(pg, schema, kind, rows) {
  const t0 = Date.now();
  const { service, table } = KINDS[kind];
  await pg.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pg.query(`CREATE SCHEMA ${schema}`);
  await pg.query(`SET search_path TO ${schema}`);
  await pg.query('CREATE TABLE growth_migrations (name text PRIMARY KEY, seconds numeric NOT NULL)');
  for (const name of migrationNames(service)) await applyMigration(pg, service, name);
  await pg.query(`SET maintenance_work_mem = '512MB'`);
  await pg.query('SELECT setseed(0.42)');
  const latin = latinVocabulary();
  const sql = kind === 'sites' ? sitesInsert(rows, latin) : kind === 'apps' ? appsInsert(rows, latin) : messagesInsert(rows);
  await withoutIndexes(pg, table, () => pg.query(sql));
  await pg.query(`VACUUM (ANALYZE) ${table}`);
  const seconds = (Date.now() - t0) / 1000;
  await pg.query(
    'CREATE TABLE growth_seed (kind text NOT NULL, rows bigint NOT NULL, version int NOT NULL, seconds numeric NOT NULL, seeded_at timestamptz NOT NULL DEFAULT now())',
  );
  await pg.query('INSERT INTO growth_seed (kind, rows, version, seconds) VALUES ($1, $2, $3, $4)', [kind, rows, SEED_VERSION, seconds]);
  await pg.query('RESET maintenance_work_mem');
  return seconds;
}
