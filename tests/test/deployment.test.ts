// Static checks of the deployment files: Dockerfile, docker-compose.yml and the k8s/
// kustomize base (k8s/base; the rendered overlays, NetworkPolicies and monitoring are
// checked in k8s-overlays.test.ts). Nothing is started; the files are parsed and cross-checked against the
// table of processes below and against each other (a probe on the wrong port, a Secret
// key nobody created, an HPA aimed at a Deployment that does not exist, a file missing
// from kustomization.yaml all fail here rather than in a cluster).
// DEPLOYMENT_ROOT points the checks at another checkout (used to see them fail).
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';

const ROOT =
  process.env.DEPLOYMENT_ROOT ??
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const K8S_DIR = path.join(ROOT, 'k8s', 'base');
/** The private operations listener (/metrics, detailed /readyz) of every process. */
const OPS_PORT = 9090;

// ---------------------------------------------------------------------------------------
// What every process needs (docs/architecture.md, docs/configuration.md, service-kit's catalog).

const DB = ['DATABASE_URL', 'REDIS_URL'];
const SITES_SETTINGS = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'CAPTCHA_SECRET_KEY',
  'CAPTCHA_VERIFY_URL',
  'DAILY_BG_SOURCE_URL',
  'OUTBOUND_ALLOW_HOSTS',
];

interface ProcessSpec {
  port: number;
  /** Workspace package directory and the Dockerfile's SERVICE build arg. */
  pkgDir: string;
  service: string;
  entry: string;
  /** Settings that must reach the process. */
  needs: string[];
  /** Settings that must be a URL of another process: name → process. */
  urls?: Record<string, string>;
  /** Has a Kubernetes Service with its public port (the worker's has only `ops`). */
  k8sService: boolean;
  hpa: boolean;
  usesDatabase: boolean;
  /** Reads Redis (REDIS_URL from the Secret, compose waits for Redis). Default true. */
  usesRedis?: boolean;
  /** Files of the package the image must ship besides dist/ (web: its React Router build). */
  shipsDirs?: string[];
}

const PROCESSES: Record<string, ProcessSpec> = {
  gateway: {
    port: 8080,
    pkgDir: 'gateway',
    service: 'gateway',
    entry: 'dist/main.js',
    needs: [
      'AUTH_URL',
      'APP_STORE_URL',
      'SITES_URL',
      'CHAT_URL',
      'TRANSLATE_URL',
      'REALTIME_URL',
      'WEB_URL',
      'MCP_URL',
      'TRUST_PROXY',
      'PUBLIC_BASE_URL',
      'CORS_ORIGINS',
    ],
    urls: {
      AUTH_URL: 'auth',
      APP_STORE_URL: 'app-store',
      SITES_URL: 'sites',
      CHAT_URL: 'chat',
      TRANSLATE_URL: 'translate',
      REALTIME_URL: 'realtime',
      WEB_URL: 'web',
      MCP_URL: 'mcp',
    },
    k8sService: true,
    hpa: true,
    usesDatabase: false,
  },
  auth: {
    port: 4001,
    pkgDir: 'services/auth',
    service: 'auth',
    entry: 'dist/main.js',
    needs: [
      ...DB,
      'JWT_PRIVATE_KEY',
      'JWT_PUBLIC_KEY',
      'RESEND_API_KEY',
      'RESEND_BASE_URL',
      'EMAIL_FROM',
      // The data export's internal calls (docs/decisions/034-data-export.md).
      'APP_STORE_URL',
      'SITES_URL',
      'CHAT_URL',
      'INTERNAL_TOKEN',
    ],
    urls: { APP_STORE_URL: 'app-store', SITES_URL: 'sites', CHAT_URL: 'chat' },
    k8sService: true,
    hpa: false,
    usesDatabase: true,
  },
  'app-store': {
    port: 4002,
    pkgDir: 'services/app-store',
    service: 'app-store',
    entry: 'dist/main.js',
    needs: [...DB, 'JWT_PUBLIC_KEY', 'IP_HASH_SECRET', 'INTERNAL_TOKEN'],
    k8sService: true,
    hpa: false,
    usesDatabase: true,
  },
  sites: {
    port: 4003,
    pkgDir: 'services/sites',
    service: 'sites',
    entry: 'dist/main.js',
    needs: [...DB, 'JWT_PUBLIC_KEY', ...SITES_SETTINGS, 'IP_HASH_SECRET', 'PUBLIC_BASE_URL', 'INTERNAL_TOKEN'],
    k8sService: true,
    hpa: false,
    usesDatabase: true,
  },
  'sites-worker': {
    port: 4013,
    pkgDir: 'services/sites',
    service: 'sites',
    entry: 'dist/worker/main.js',
    needs: [...DB, ...SITES_SETTINGS],
    k8sService: false,
    hpa: true,
    usesDatabase: true,
  },
  chat: {
    port: 4004,
    pkgDir: 'services/chat',
    service: 'chat',
    entry: 'dist/main.js',
    needs: [...DB, 'JWT_PUBLIC_KEY', 'IP_HASH_SECRET', 'INTERNAL_TOKEN'],
    k8sService: true,
    hpa: false,
    usesDatabase: true,
  },
  translate: {
    port: 4005,
    pkgDir: 'services/translate',
    service: 'translate',
    entry: 'dist/main.js',
    needs: ['REDIS_URL', 'JWT_PUBLIC_KEY', 'ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL'],
    k8sService: true,
    hpa: false,
    usesDatabase: false,
  },
  realtime: {
    port: 4006,
    pkgDir: 'services/realtime',
    service: 'realtime',
    entry: 'dist/main.js',
    needs: ['REDIS_URL', 'JWT_PUBLIC_KEY', 'CHAT_URL', 'INTERNAL_TOKEN'],
    urls: { CHAT_URL: 'chat' },
    k8sService: true,
    hpa: true,
    usesDatabase: false,
  },
  // The server-rendered pages: the gateway sends it every page path; it calls the API back
  // through the gateway. No database, no Redis, no secret.
  web: {
    port: 4007,
    pkgDir: 'services/web',
    service: 'web',
    entry: 'dist/main.js',
    needs: ['API_BASE_URL', 'PUBLIC_BASE_URL', 'CAPTCHA_SITE_KEY'],
    urls: { API_BASE_URL: 'gateway' },
    k8sService: true,
    hpa: true,
    usesDatabase: false,
    usesRedis: false,
    shipsDirs: ['build'],
  },
  // The MCP server: calls app-store, sites, chat and translate on their public ports with
  // each agent's address (docs/decisions/028-mcp-server.md). No database, no Redis, no secret.
  mcp: {
    port: 4008,
    pkgDir: 'services/mcp',
    service: 'mcp',
    entry: 'dist/main.js',
    needs: ['APP_STORE_URL', 'SITES_URL', 'CHAT_URL', 'TRANSLATE_URL', 'MCP_ALLOWED_ORIGINS', 'TRUSTED_PROXIES'],
    urls: { APP_STORE_URL: 'app-store', SITES_URL: 'sites', CHAT_URL: 'chat', TRANSLATE_URL: 'translate' },
    k8sService: true,
    hpa: false,
    usesDatabase: false,
    usesRedis: false,
  },
};
/** The services whose endpoints the MCP tools call: they trust mcp's address too. */
const CALLED_BY_MCP = ['app-store', 'sites', 'chat', 'translate'];
const NAMES = Object.keys(PROCESSES);
const SERVICE_ARGS = ['gateway', 'auth', 'app-store', 'sites', 'chat', 'translate', 'realtime', 'web', 'mcp'];
/** Settings every process gets in both environments (REDIS_URL: those that use Redis). */
const COMMON = ['PORT', 'NODE_ENV', 'LOG_LEVEL'];
const commonOf = (p: ProcessSpec) => (p.usesRedis === false ? COMMON : [...COMMON, 'REDIS_URL']);
/** Settings that must hold a real value in compose (not an empty fallback). */
/** The processes whose session middleware verifies sn_token (docs/decisions/002-email-code-login-and-sessions.md). */
const SESSION_VERIFIERS = ['auth', 'app-store', 'sites', 'chat'] as const;
const REQUIRED_NON_EMPTY =
  /_URL$|^PORT$|^NODE_ENV$|^LOG_LEVEL$|^JWT_|^EMAIL_FROM$|^TRUST_PROXY$|^IP_HASH_SECRET$|^INTERNAL_TOKEN$/;
const IMAGE_PREFIX = 'ghcr.io/svc-platform/';

const spec = (name: string): ProcessSpec => {
  const s = PROCESSES[name];
  if (!s) throw new Error(`unknown process ${name}`);
  return s;
};

// ---------------------------------------------------------------------------------------
// Loose shapes of what the files hold (only the fields the checks read).

type Labels = Record<string, string>;
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
  };
}
interface EnvFrom {
  configMapRef?: { name: string };
  secretRef?: { name: string };
}
interface Probe {
  httpGet?: { path?: string; port?: string | number };
}
interface Container {
  name: string;
  image?: string;
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: EnvFrom[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    allowPrivilegeEscalation?: boolean;
  };
}
interface PodTemplate {
  metadata?: { labels?: Labels };
  spec: {
    containers: Container[];
    restartPolicy?: string;
    securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  };
}
interface Selector {
  matchLabels?: Labels;
  matchExpressions?: unknown[];
}
interface Resource {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Labels;
    annotations?: Record<string, string>;
  };
  // Deployment/Job/Service/PDB/HPA/ConfigMap/Secret fields, all optional.
  spec?: {
    replicas?: number;
    selector?: Selector | Labels;
    template?: PodTemplate;
    ports?: { name?: string; port: number; targetPort?: string | number }[];
    scaleTargetRef?: { apiVersion: string; kind: string; name: string };
    minReplicas?: number;
    maxReplicas?: number;
    minAvailable?: number | string;
    maxUnavailable?: number | string;
  };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}
interface Located {
  file: string;
  res: Resource;
}

interface ComposeService {
  image?: string;
  build?: {
    context?: string;
    dockerfile?: string;
    target?: string;
    args?: Record<string, string> | string[];
  };
  environment?: Record<string, string | number | boolean | null> | string[];
  healthcheck?: { test?: string | string[] };
  depends_on?: Record<string, { condition?: string }> | string[];
  ports?: (string | { target: number; published: number | string })[];
  command?: string | string[];
  volumes?: string[];
  networks?: Record<string, { ipv4_address?: string } | null> | string[];
}
interface Compose {
  services: Record<string, ComposeService>;
  networks?: Record<string, { ipam?: { config?: { subnet?: string }[] } } | null>;
  volumes?: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------
// Loading.

const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');

function yamlDocuments(file: string): Resource[] {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'), { merge: true });
  const out: Resource[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0)
      throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value = doc.toJS() as Resource | null;
    if (value !== null && value !== undefined) out.push(value);
  }
  return out;
}

const k8sFiles = readdirSync(K8S_DIR)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort();
const docsByFile = new Map(k8sFiles.map((f) => [f, yamlDocuments(path.join(K8S_DIR, f))]));
const kustomization = parse(readFileSync(path.join(K8S_DIR, 'kustomization.yaml'), 'utf8')) as {
  namespace?: string;
  resources?: string[];
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
  secretGenerator?: { name: string; literals?: string[]; envs?: string[]; files?: string[] }[];
};
const SECRET_TEMPLATE = 'secret.example.yaml';
const resourceFiles = kustomization.resources ?? [];
/** What `kubectl apply -k k8s` would create (the files kustomization.yaml lists). */
const applied: Located[] = resourceFiles.flatMap((file) =>
  (docsByFile.get(file) ?? []).map((res) => ({ file, res })),
);
const secretTemplate: Resource[] = docsByFile.get(SECRET_TEMPLATE) ?? [];

const ofKind = (kind: string) => applied.filter((l) => l.res.kind === kind).map((l) => l.res);
const named = (kind: string, name: string) => ofKind(kind).find((r) => r.metadata.name === name);

const compose = parse(read('docker-compose.yml'), { merge: true }) as Compose;
const dockerfile = read('Dockerfile');

// ---------------------------------------------------------------------------------------
// Helpers.

function composeEnv(svc: ComposeService): Record<string, string> {
  const env = svc.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((line) => {
        const i = line.indexOf('=');
        return i < 0 ? [line, ''] : [line.slice(0, i), line.slice(i + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

function composeArgs(svc: ComposeService): Record<string, string> {
  const args = svc.build?.args ?? {};
  if (Array.isArray(args)) {
    return Object.fromEntries(
      args.map((a) => [a.split('=')[0] ?? a, a.split('=').slice(1).join('=')]),
    );
  }
  return args;
}

function composeDependsOn(svc: ComposeService): Record<string, string | undefined> {
  const d = svc.depends_on ?? {};
  if (Array.isArray(d)) return Object.fromEntries(d.map((n) => [n, undefined]));
  return Object.fromEntries(Object.entries(d).map(([k, v]) => [k, v?.condition]));
}

/** Does a compose value hold something when no .env overrides it? `${X:-}` does not. */
function hasValue(v: string | undefined): boolean {
  if (v === undefined || v.trim() === '') return false;
  const m = /^\$\{[A-Z0-9_]+(:?[-?])(.*)\}$/s.exec(v.trim());
  if (!m) return true;
  // ${X:?message} demands the value at `docker compose up`; ${X:-default} needs a default.
  return m[1]!.endsWith('?') || m[2]!.trim() !== '';
}

function selectorLabels(sel: Selector | Labels | undefined): Labels {
  if (!sel) return {};
  if ('matchExpressions' in sel && sel.matchExpressions)
    throw new Error('matchExpressions are not checked here');
  if ('matchLabels' in sel && typeof sel.matchLabels === 'object') return sel.matchLabels as Labels;
  return sel as Labels;
}

const matches = (sel: Labels, labels: Labels | undefined) =>
  Object.keys(sel).length > 0 && Object.entries(sel).every(([k, v]) => labels?.[k] === v);

function mainContainer(res: Resource): Container {
  const c = res.spec?.template?.spec.containers[0];
  if (!c) throw new Error(`${res.kind}/${res.metadata.name} has no container`);
  return c;
}

function resolvePort(c: Container, port: string | number | undefined): number | undefined {
  if (typeof port === 'number') return port;
  if (port !== undefined && /^\d+$/.test(port)) return Number(port);
  return c.ports?.find((p) => p.name === port)?.containerPort;
}

const configMaps = () =>
  new Map(ofKind('ConfigMap').map((r) => [r.metadata.name, { ...(r.data ?? {}) }]));

/** Secrets: the template ops fill in, plus any the kustomization generates or holds. */
function secrets(): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const r of [...secretTemplate, ...ofKind('Secret')]) {
    if (r.kind !== 'Secret') continue;
    out.set(r.metadata.name, {
      ...(out.get(r.metadata.name) ?? {}),
      ...(r.data ?? {}),
      ...(r.stringData ?? {}),
    });
  }
  for (const g of kustomization.secretGenerator ?? []) {
    const keys = Object.fromEntries((g.literals ?? []).map((l) => [l.split('=')[0] ?? l, '']));
    out.set(g.name, { ...(out.get(g.name) ?? {}), ...keys });
  }
  return out;
}

/**
 * Every setting a container receives, with where it comes from. Throws on a reference to
 * a ConfigMap/Secret or key that does not exist, so a typo cannot hide.
 */
function containerSettings(c: Container): Map<string, string> {
  const cms = configMaps();
  const secs = secrets();
  const out = new Map<string, string>();
  for (const from of c.envFrom ?? []) {
    if (from.configMapRef) {
      const cm = cms.get(from.configMapRef.name);
      if (!cm)
        throw new Error(`${c.name}: envFrom ConfigMap ${from.configMapRef.name} does not exist`);
      for (const [k, v] of Object.entries(cm))
        out.set(k, `configmap:${from.configMapRef.name}=${v}`);
    }
    if (from.secretRef) {
      const s = secs.get(from.secretRef.name);
      if (!s) throw new Error(`${c.name}: envFrom Secret ${from.secretRef.name} does not exist`);
      for (const k of Object.keys(s)) out.set(k, `secret:${from.secretRef.name}`);
    }
  }
  for (const e of c.env ?? []) {
    const sk = e.valueFrom?.secretKeyRef;
    const ck = e.valueFrom?.configMapKeyRef;
    if (sk) {
      const s = secs.get(sk.name);
      if (!s) throw new Error(`${c.name}: ${e.name} reads Secret ${sk.name}, which does not exist`);
      if (!(sk.key in s))
        throw new Error(`${c.name}: ${e.name} reads key ${sk.key}, missing in Secret ${sk.name}`);
      out.set(e.name, `secret:${sk.name}`);
    } else if (ck) {
      const cm = cms.get(ck.name);
      if (!cm)
        throw new Error(`${c.name}: ${e.name} reads ConfigMap ${ck.name}, which does not exist`);
      if (!(ck.key in cm))
        throw new Error(
          `${c.name}: ${e.name} reads key ${ck.key}, missing in ConfigMap ${ck.name}`,
        );
      out.set(e.name, `configmap:${ck.name}=${cm[ck.key]}`);
    } else {
      out.set(e.name, `value=${e.value ?? ''}`);
    }
  }
  return out;
}

interface Stage {
  name: string;
  from: string;
  body: string;
}

/** FROM … AS … stages of the Dockerfile, with global ARG defaults substituted into FROM. */
function dockerStages(text: string): { globalArgs: Record<string, string>; stages: Stage[] } {
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of lines) {
    const t = line.trim();
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(t);
    if (from) {
      const image = from[1]!.replace(/\$\{?(\w+)\}?/g, (_, n: string) => globalArgs[n] ?? `$${n}`);
      stages.push({ name: (from[2] ?? `#${stages.length}`).toLowerCase(), from: image, body: '' });
      continue;
    }
    const current = stages[stages.length - 1];
    if (current) current.body += `${t}\n`;
    else {
      const arg = /^ARG\s+(\w+)(?:=(\S*))?/i.exec(t);
      if (arg) globalArgs[arg[1]!] = arg[2] ?? '';
    }
  }
  return { globalArgs, stages };
}
const { stages } = dockerStages(dockerfile);
const stage = (name: string) => stages.find((s) => s.name === name);

// ---------------------------------------------------------------------------------------

describe('one Node version', () => {
  it('the toolchain, .nvmrc, the Dockerfile and engines name the same Node 24 LTS', () => {
    const pinned = readFileSync(path.join(ROOT, '.nvmrc'), 'utf8').trim();
    expect(pinned).toMatch(/^24\.\d+\.\d+$/);
    const toolchain = readFileSync(path.join(ROOT, 'scripts/toolchain.mjs'), 'utf8');
    expect(/NODE_VERSION = '([\d.]+)'/.exec(toolchain)?.[1]).toBe(pinned);
    expect(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')).toContain(`ARG NODE_IMAGE=node:${pinned}-bookworm-slim`);
    const engines = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).engines.node;
    expect(engines).toMatch(/^>=24\./);
  });
});

describe('Dockerfile', () => {
  it('builds from the Node the project pins (.nvmrc) in deps, build, runtime and migrate stages', () => {
    const pinned = readFileSync(path.join(ROOT, '.nvmrc'), 'utf8').trim();
    for (const s of stages) {
      const isStage = stages.some((o) => o.name === s.from.toLowerCase());
      if (!isStage) expect(s.from).toBe(`node:${pinned}-bookworm-slim`);
    }
    for (const name of ['deps', 'build', 'runtime', 'migrate']) expect(stage(name)).toBeDefined();
    // The shipped stage is the last one, so a plain `docker build` produces a service image.
    expect(stages[stages.length - 1]?.name).toBe('runtime');
  });

  it('installs the pinned pnpm, installs from the lockfile and builds with turbo', () => {
    expect(dockerfile).toMatch(/pnpm@10\.34\.9/);
    expect(dockerfile).toMatch(/pnpm (fetch|install)[^\n]*--frozen-lockfile/);
    expect(stage('build')?.body).toMatch(/pnpm (exec )?turbo run build/);
    const pkg = JSON.parse(read('package.json')) as { packageManager?: string };
    expect(pkg.packageManager).toBe('pnpm@10.34.9');
  });

  it('selects the service with ARG SERVICE and ENTRY and prunes to production dependencies', () => {
    const runtimeAndDeploy = stages.map((s) => s.body).join('\n');
    expect(runtimeAndDeploy).toMatch(/^ARG SERVICE\b/m);
    expect(stage('runtime')?.body).toMatch(/^ARG ENTRY=dist\/main\.js$/m);
    expect(dockerfile).toMatch(/pnpm [^\n]*deploy[^\n]*--prod/);
    // Every value the case statement accepts is a real workspace package.
    for (const s of SERVICE_ARGS) expect(dockerfile).toContain(s);
    const accepted = /case "\$\{SERVICE:-\}" in\s+([a-z|-]+)\)/.exec(stage('deploy')?.body ?? '')?.[1]?.split('|');
    expect(accepted?.sort()).toEqual([...SERVICE_ARGS].sort());
  });

  it.each(NAMES.filter((n) => (spec(n).shipsDirs ?? []).length > 0))(
    'the %s image ships its extra directories (copied in deploy, kept by the prune, checked in runtime)',
    (name) => {
      const p = spec(name);
      const deploy = stage('deploy')?.body ?? '';
      const runtime = stage('runtime')?.body ?? '';
      for (const dir of p.shipsDirs ?? []) {
        // git-ignored build output: pnpm deploy leaves it out, so deploy copies it itself…
        expect(deploy).toContain(`cp -R ${p.pkgDir}/${dir} /out/${dir}`);
        // …the prune of /out keeps it…
        expect(deploy).toMatch(new RegExp(`find /out [^\\n]*! -name ${dir}(\\s|$)`));
        // …and the runtime stage copies /out whole and fails without it.
        expect(runtime).toMatch(/^COPY --from=deploy \/out\/ \.\/$/m);
        expect(runtime).toContain(`/app/${dir}/`);
      }
      // The host's copy never enters the build context (the image builds its own).
      const ignore = read('.dockerignore').split(/\r?\n/).map((l) => l.trim());
      for (const dir of p.shipsDirs ?? []) expect(ignore).toContain(`${p.pkgDir}/${dir}`);
    },
  );

  it('runs the runtime image as the non-root node user with NODE_ENV=production', () => {
    const body = stage('runtime')?.body ?? '';
    const user = /^USER\s+(\S+)/m.exec(body)?.[1];
    expect(user).toBeDefined();
    expect(['node', '1000', '1000:1000', 'node:node']).toContain(user);
    expect(body).toMatch(/NODE_ENV=production/);
    expect(body).toMatch(/^CMD .*node/m);
  });

  it('has a migrate target that runs scripts/migrate.mjs', () => {
    const body = stage('migrate')?.body ?? '';
    expect(body).toMatch(/^CMD\s.*node.*scripts\/migrate\.mjs/m);
    expect(body).toMatch(/^USER\s+(node|1000)/m);
  });

  it('keeps host node_modules, build output and .env files out of the build context', () => {
    const ignore = read('.dockerignore')
      .split(/\r?\n/)
      .map((l) => l.trim());
    expect(ignore).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '.env', '.git']));
  });

  it.each(SERVICE_ARGS)('SERVICE=%s is a workspace package with a start script', (service) => {
    const dir = service === 'gateway' ? 'gateway' : `services/${service}`;
    const pkg = JSON.parse(read(`${dir}/package.json`)) as {
      name: string;
      scripts?: Record<string, string>;
    };
    expect(pkg.name).toBe(`@svc/${service}`);
    expect(pkg.scripts?.start).toBe('node dist/main.js');
    expect(pkg.scripts?.build).toBeDefined();
  });
});

describe('docker-compose.yml', () => {
  const services = compose.services;

  it('has PostgreSQL 15 and Redis 7 with healthchecks', () => {
    expect(services.postgres?.image).toMatch(/^postgres:15/);
    expect(services.redis?.image).toMatch(/^redis:7/);
    expect(services.postgres?.healthcheck?.test).toBeDefined();
    expect(services.redis?.healthcheck?.test).toBeDefined();
  });

  it('runs the migrations once, from the migrate target, after PostgreSQL is healthy', () => {
    const m = services.migrate;
    expect(m?.build?.target).toBe('migrate');
    expect(composeDependsOn(m!).postgres).toBe('service_healthy');
    expect(hasValue(composeEnv(m!).DATABASE_URL)).toBe(true);
  });

  it('every depends_on names a defined service with a condition', () => {
    for (const [name, svc] of Object.entries(services)) {
      for (const [dep, cond] of Object.entries(composeDependsOn(svc))) {
        expect({ name, dep, exists: dep in services }).toEqual({ name, dep, exists: true });
        expect(['service_healthy', 'service_completed_successfully', 'service_started']).toContain(
          cond,
        );
        if (cond === 'service_healthy') expect(services[dep]?.healthcheck?.test).toBeDefined();
      }
    }
  });

  it('every build target is a Dockerfile stage', () => {
    for (const svc of Object.values(services)) {
      if (!svc.build) continue;
      expect(svc.build.context ?? '.').toBe('.');
      expect(svc.build.dockerfile ?? 'Dockerfile').toBe('Dockerfile');
      if (svc.build.target) expect(stages.map((s) => s.name)).toContain(svc.build.target);
    }
  });

  describe.each(NAMES)('%s', (name) => {
    const p = spec(name);
    const svc = services[name];

    it('is built from the Dockerfile with its SERVICE/ENTRY and tagged like in k8s', () => {
      expect(svc).toBeDefined();
      const args = composeArgs(svc!);
      expect(args.SERVICE).toBe(p.service);
      expect(args.ENTRY ?? 'dist/main.js').toBe(p.entry);
      expect(svc!.build?.target ?? 'runtime').toBe('runtime');
      expect(svc!.image).toBe(`${IMAGE_PREFIX}${name}:latest`);
      if (p.entry !== 'dist/main.js') {
        const pkg = JSON.parse(read(`${p.pkgDir}/package.json`)) as {
          scripts?: Record<string, string>;
        };
        expect(Object.values(pkg.scripts ?? {})).toContain(`node ${p.entry}`);
      }
    });

    // The detailed readiness is on the private ops port, PORT + 1000 (docs/decisions/013-operations-port.md).
    it(`has a healthcheck on its ops port 127.0.0.1:${p.port + 1000}/readyz with node (no curl in slim)`, () => {
      const test = svc!.healthcheck?.test;
      expect(Array.isArray(test)).toBe(true);
      const argv = test as string[];
      expect(argv.slice(0, 2)).toEqual(['CMD', 'node']);
      expect(composeEnv(svc!).OPS_PORT ?? String(p.port + 1000)).toBe(String(p.port + 1000));
      expect(argv.join(' ')).toMatch(
        new RegExp(`fetch\\(['"]http://(127\\.0\\.0\\.1|localhost):${p.port + 1000}/readyz['"]`),
      );
      expect(argv.join(' ')).toMatch(/process\.exit\(r\.ok \? 0 : 1\)|r\.ok/);
    });

    it('gets every setting it needs', () => {
      const env = composeEnv(svc!);
      expect(env.PORT).toBe(String(p.port));
      for (const key of [...commonOf(p), ...p.needs]) {
        expect({ key, present: key in env }).toEqual({ key, present: true });
        if (REQUIRED_NON_EMPTY.test(key))
          expect({ key, value: hasValue(env[key]) }).toEqual({ key, value: true });
      }
      for (const [key, target] of Object.entries(p.urls ?? {})) {
        expect(env[key]).toBe(`http://${target}:${spec(target).port}`);
      }
      if (p.usesDatabase)
        expect(env.DATABASE_URL).toMatch(/^postgres(ql)?:\/\/[^@]+@postgres:5432\//);
      if (p.usesRedis !== false) expect(env.REDIS_URL).toMatch(/^redis:\/\/redis:6379/);
    });

    it('waits for its dependencies', () => {
      const deps = composeDependsOn(svc!);
      if (p.usesRedis !== false) expect(deps.redis).toBe('service_healthy');
      // The gateway waits for every process it routes to. A process that calls the
      // gateway back (web) cannot wait for it: the gateway already waits for it.
      if (name === 'gateway') {
        for (const target of Object.values(p.urls ?? {})) {
          expect({ target, condition: deps[target] }).toEqual({ target, condition: 'service_healthy' });
        }
      } else expect(deps.gateway).toBeUndefined();
      if (p.usesDatabase) {
        expect(deps.postgres).toBe('service_healthy');
        expect(deps.migrate).toBe('service_completed_successfully');
      }
    });
  });

  it('requires the JWT keys from the environment instead of committing them', () => {
    const text = read('docker-compose.yml');
    expect(text).toMatch(/\$\{JWT_PRIVATE_KEY:\?/);
    expect(text).toMatch(/\$\{JWT_PUBLIC_KEY:\?/);
    expect(text).not.toMatch(/BEGIN (EC )?PRIVATE KEY/);
  });

  it('passes the optional JWT_PUBLIC_KEYS (key rotation) to every process that verifies sessions', () => {
    for (const name of SESSION_VERIFIERS) {
      expect({ name, value: composeEnv(services[name]!).JWT_PUBLIC_KEYS }).toEqual({ name, value: '${JWT_PUBLIC_KEYS:-}' });
    }
  });

  it('runs Redis for BullMQ: noeviction, append-only persistence on a volume', () => {
    const redis = services.redis!;
    const command = Array.isArray(redis.command) ? redis.command.join(' ') : (redis.command ?? '');
    expect(command).toMatch(/^redis-server\b/);
    expect(command).toMatch(/--maxmemory-policy noeviction\b/);
    expect(command).toMatch(/--appendonly yes\b/);
    const dataVolume = (redis.volumes ?? []).find((v) => v.endsWith(':/data'));
    expect(dataVolume).toBeDefined();
    expect(Object.keys(compose.volumes ?? {})).toContain(dataVolume!.split(':')[0]);
  });

  it('services and web trust X-Forwarded-For from the gateway\'s fixed address only, and the four mcp calls from mcp\'s too', () => {
    const fixedAddress = (name: string) => {
      const nets = services[name]?.networks;
      return !Array.isArray(nets) ? nets?.default?.ipv4_address : undefined;
    };
    const address = fixedAddress('gateway');
    const mcpAddress = fixedAddress('mcp');
    const subnet = compose.networks?.default?.ipam?.config?.[0]?.subnet ?? '';
    const [base, bits] = subnet.split('/');
    const toInt = (ip: string) => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
    const block = 2 ** (32 - Number(bits));
    for (const fixed of [address, mcpAddress]) {
      expect(fixed).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      // The address lies in the compose network's subnet.
      expect(Math.floor(toInt(fixed!) / block)).toBe(Math.floor(toInt(base!) / block));
    }
    expect(mcpAddress).not.toBe(address);
    for (const name of NAMES.filter((n) => n !== 'gateway' && n !== 'sites-worker')) {
      expect({ name, trusted: composeEnv(services[name]!).TRUSTED_PROXIES }).toEqual({
        name,
        trusted: CALLED_BY_MCP.includes(name) ? `${address},${mcpAddress}` : address,
      });
    }
  });

  it('publishes no ops port (only on loopback if ever)', () => {
    const opsPorts = NAMES.map((n) => String(spec(n).port + 1000));
    for (const [name, svc] of Object.entries(services)) {
      for (const p of svc.ports ?? []) {
        const text = typeof p === 'string' ? p : `${p.published}:${p.target}`;
        const target = text.split(':').at(-1)!;
        if (opsPorts.includes(target)) expect({ name, text }).toEqual({ name, text: `127.0.0.1:${target}:${target}` });
      }
    }
  });

  it('publishes only the gateway, on 8080', () => {
    const published = Object.entries(services).filter(([, s]) => (s.ports ?? []).length > 0);
    expect(published.map(([n]) => n)).toEqual(['gateway']);
    const ports = (services.gateway?.ports ?? []).map((p) =>
      typeof p === 'string' ? p : `${p.published}:${p.target}`,
    );
    expect(ports.some((p) => /(^|:)8080:8080$/.test(p))).toBe(true);
  });
});

describe('k8s kustomization', () => {
  it('every YAML document parses into a Kubernetes object', () => {
    for (const [file, docs] of docsByFile) {
      if (file === 'kustomization.yaml') continue;
      expect({ file, count: docs.length > 0 }).toEqual({ file, count: true });
      for (const d of docs) {
        expect({ file, ok: Boolean(d.apiVersion && d.kind && d.metadata?.name) }).toEqual({
          file,
          ok: true,
        });
      }
    }
  });

  it('lists every file that holds resources, and only existing ones', () => {
    const holdingResources = k8sFiles.filter(
      (f) =>
        f !== 'kustomization.yaml' && (docsByFile.get(f) ?? []).some((d) => d.apiVersion && d.kind),
    );
    for (const f of resourceFiles) expect(existsSync(path.join(K8S_DIR, f))).toBe(true);
    // The Secret template is deliberately not applied: ops create svc-secrets.
    expect(resourceFiles).not.toContain(SECRET_TEMPLATE);
    expect([...resourceFiles].sort()).toEqual(
      holdingResources.filter((f) => f !== SECRET_TEMPLATE),
    );
    expect(new Set(resourceFiles).size).toBe(resourceFiles.length);
  });

  it('has no two resources of the same kind and name', () => {
    const ids = applied.map((l) => `${l.res.kind}/${l.res.metadata.name}`);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('creates the namespace it deploys into', () => {
    expect(kustomization.namespace).toBeDefined();
    expect(named('Namespace', kustomization.namespace!)).toBeDefined();
  });

  it('uses only ghcr.io/svc-platform images, untagged: each overlay pins the tag', () => {
    const used = applied.flatMap((l) =>
      (l.res.spec?.template?.spec.containers ?? []).map((c) => c.image ?? ''),
    );
    expect(used.length).toBeGreaterThan(0);
    for (const image of used) {
      expect(image.startsWith(IMAGE_PREFIX)).toBe(true);
      expect({ image, tagged: /[:@]/.test(image.slice(IMAGE_PREFIX.length)) }).toEqual({ image, tagged: false });
    }
    // No tag in the base, so a forgotten overlay entry cannot fall back to `latest`.
    expect(kustomization.images ?? []).toEqual([]);
  });

  it('sets OPS_PORT for every process to the port named ops', () => {
    expect(named('ConfigMap', 'svc-config')?.data?.OPS_PORT).toBe(String(OPS_PORT));
  });

  it('keeps only placeholders in the Secret template', () => {
    const secret = secretTemplate.find((r) => r.kind === 'Secret');
    expect(secret?.metadata.name).toBe('svc-secrets');
    expect(secret?.metadata.namespace).toBe(kustomization.namespace);
    for (const [key, value] of Object.entries(secret?.stringData ?? {})) {
      // Empty is no secret either (JWT_PUBLIC_KEYS is empty outside a key rotation).
      expect({ key, placeholder: /CHANGE_ME/.test(value) || value === '' }).toEqual({ key, placeholder: true });
    }
  });
});

describe('k8s workloads', () => {
  const deployments = ofKind('Deployment');

  it('has exactly one Deployment per process', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([...NAMES].sort());
  });

  it('gives every process that verifies sessions the optional JWT_PUBLIC_KEYS (key rotation)', () => {
    for (const name of SESSION_VERIFIERS) {
      const env = mainContainer(named('Deployment', name)!).env ?? [];
      const ref = env.find((e) => e.name === 'JWT_PUBLIC_KEYS')?.valueFrom?.secretKeyRef;
      // optional: a Secret written before the key existed keeps the pods starting.
      expect({ name, ref }).toEqual({ name, ref: { name: 'svc-secrets', key: 'JWT_PUBLIC_KEYS', optional: true } });
    }
  });

  describe.each(NAMES)('%s', (name) => {
    const p = spec(name);
    const deployment = () => {
      const d = named('Deployment', name);
      if (!d) throw new Error(`no Deployment ${name}`);
      return d;
    };

    it(`runs ${IMAGE_PREFIX}${name} listening on ${p.port} (http) and ${OPS_PORT} (ops)`, () => {
      const d = deployment();
      const c = mainContainer(d);
      expect(c.image).toBe(`${IMAGE_PREFIX}${name}`);
      expect(resolvePort(c, 'http')).toBe(p.port);
      expect(resolvePort(c, 'ops')).toBe(OPS_PORT);
      expect(c.ports).toHaveLength(2);
      // Prometheus annotations (scrapers without the operator) point at ops as well.
      const annotations = (d.spec?.template?.metadata as { annotations?: Record<string, string> })?.annotations;
      expect(annotations?.['prometheus.io/port']).toBe(String(OPS_PORT));
      // The Deployment's selector selects its own pods.
      expect(matches(selectorLabels(d.spec?.selector), d.spec?.template?.metadata?.labels)).toBe(
        true,
      );
    });

    // The gateway's /readyz aggregates all services: as its pod readiness, one service
    // outage would take the whole origin down, so it is ready when it is alive.
    const readiness = name === 'gateway' ? { path: '/healthz', port: p.port } : { path: '/readyz', port: OPS_PORT };
    it(`has a liveness probe on /healthz (http) and a readiness probe on ${readiness.path} (${readiness.port})`, () => {
      const c = mainContainer(deployment());
      expect(c.livenessProbe?.httpGet?.path).toBe('/healthz');
      expect(resolvePort(c, c.livenessProbe?.httpGet?.port)).toBe(p.port);
      expect(c.readinessProbe?.httpGet?.path).toBe(readiness.path);
      expect(resolvePort(c, c.readinessProbe?.httpGet?.port)).toBe(readiness.port);
    });

    it('sets resource requests and limits', () => {
      const r = mainContainer(deployment()).resources;
      for (const k of ['cpu', 'memory']) {
        expect(r?.requests?.[k]).toBeDefined();
        expect(r?.limits?.[k]).toBeDefined();
      }
    });

    it('runs as non-root without privilege escalation', () => {
      const d = deployment();
      const c = mainContainer(d);
      expect(
        d.spec?.template?.spec.securityContext?.runAsNonRoot ?? c.securityContext?.runAsNonRoot,
      ).toBe(true);
      expect(c.securityContext?.allowPrivilegeEscalation).toBe(false);
    });

    it('gets every setting it needs from existing ConfigMap/Secret keys', () => {
      const settings = containerSettings(mainContainer(deployment()));
      expect(settings.get('PORT')).toBe(`value=${p.port}`);
      for (const key of [...commonOf(p), ...p.needs]) {
        expect({ key, present: settings.has(key) }).toEqual({ key, present: true });
      }
      // Keys and passwords come from the Secret, never from the ConfigMap or a literal
      // (a CAPTCHA *site* key is public: the pages hand it to every browser).
      for (const key of p.needs.filter((k) => /(?<!_SITE)_KEY$|DATABASE_URL|REDIS_URL/.test(k))) {
        expect({ key, from: settings.get(key)?.split(':')[0] }).toEqual({ key, from: 'secret' });
      }
      for (const [key, target] of Object.entries(p.urls ?? {})) {
        const url = settings.get(key)?.replace(/^[^=]*=/, '');
        const svc = named('Service', target);
        expect(svc).toBeDefined();
        expect(url).toBe(`http://${target}:${svc!.spec?.ports?.[0]?.port}`);
      }
      expect(settings.get('NODE_ENV')).toMatch(/=production$/);
      // Only auth signs sessions.
      if (name !== 'auth') expect(settings.has('JWT_PRIVATE_KEY')).toBe(false);
    });

    it(
      p.k8sService
        ? 'has a Service that selects its pods, http first, then ops'
        : 'has a Service with only the ops port (nothing calls it; Prometheus scrapes it)',
      () => {
        const svc = named('Service', name);
        const d = deployment();
        expect(
          matches(selectorLabels(svc?.spec?.selector), d.spec?.template?.metadata?.labels),
        ).toBe(true);
        const ports = svc!.spec?.ports ?? [];
        const ops = ports.find((x) => x.name === 'ops');
        expect(ops?.port).toBe(OPS_PORT);
        expect(resolvePort(mainContainer(d), ops?.targetPort ?? ops?.port)).toBe(OPS_PORT);
        if (!p.k8sService) {
          expect(ports).toHaveLength(1);
          return;
        }
        expect(ports).toHaveLength(2);
        const port = ports[0];
        expect(port?.name).toBe('http');
        expect(port?.port).toBe(p.port);
        expect(resolvePort(mainContainer(d), port?.targetPort ?? port?.port)).toBe(p.port);
      },
    );

    it('has a PodDisruptionBudget', () => {
      const d = deployment();
      const pdbs = ofKind('PodDisruptionBudget').filter((b) =>
        matches(selectorLabels(b.spec?.selector), d.spec?.template?.metadata?.labels),
      );
      expect(pdbs).toHaveLength(1);
    });

    it(
      p.hpa ? 'is scaled by an autoscaling/v2 HPA' : 'has a fixed replica count of at least 2',
      () => {
        const d = deployment();
        const hpas = ofKind('HorizontalPodAutoscaler').filter(
          (h) => h.spec?.scaleTargetRef?.name === name,
        );
        if (!p.hpa) {
          expect(hpas).toHaveLength(0);
          expect(d.spec?.replicas ?? 1).toBeGreaterThanOrEqual(2);
          return;
        }
        expect(hpas).toHaveLength(1);
        const h = hpas[0]!;
        expect(h.apiVersion).toBe('autoscaling/v2');
        expect(h.spec?.minReplicas ?? 1).toBeGreaterThanOrEqual(2);
        expect(h.spec?.maxReplicas).toBeGreaterThan(h.spec?.minReplicas ?? 1);
        // A fixed count would be reset on every apply, fighting the autoscaler.
        expect(d.spec?.replicas).toBeUndefined();
      },
    );
  });

  it('every Service selects the pods of a Deployment', () => {
    for (const svc of ofKind('Service')) {
      const sel = selectorLabels(svc.spec?.selector);
      const hit = deployments.some((d) => matches(sel, d.spec?.template?.metadata?.labels));
      expect({ service: svc.metadata.name, hit }).toEqual({
        service: svc.metadata.name,
        hit: true,
      });
    }
  });

  it('every PodDisruptionBudget selects the pods of a Deployment', () => {
    const pdbs = ofKind('PodDisruptionBudget');
    expect(pdbs.length).toBeGreaterThan(0);
    for (const b of pdbs) {
      const sel = selectorLabels(b.spec?.selector);
      const hit = deployments.some((d) => matches(sel, d.spec?.template?.metadata?.labels));
      expect({ pdb: b.metadata.name, hit }).toEqual({ pdb: b.metadata.name, hit: true });
      expect(b.spec?.minAvailable ?? b.spec?.maxUnavailable).toBeDefined();
    }
  });

  it('every HPA targets an existing Deployment; gateway, realtime, web and sites-worker have one', () => {
    const hpas = ofKind('HorizontalPodAutoscaler');
    for (const h of hpas) {
      const ref = h.spec?.scaleTargetRef;
      expect(ref?.kind).toBe('Deployment');
      expect(ref?.apiVersion).toBe('apps/v1');
      expect(named('Deployment', ref?.name ?? '')).toBeDefined();
    }
    expect(hpas.map((h) => h.spec?.scaleTargetRef?.name).sort()).toEqual([
      'gateway',
      'realtime',
      'sites-worker',
      'web',
    ]);
  });

  it('every secretKeyRef/configMapKeyRef in the base points at an existing key', () => {
    for (const l of applied) {
      for (const c of l.res.spec?.template?.spec.containers ?? []) {
        expect(() => containerSettings(c)).not.toThrow();
      }
    }
  });
});

describe('k8s migration Job', () => {
  it('runs the migrate image once with the database URL, as non-root', () => {
    const jobs = ofKind('Job');
    expect(jobs).toHaveLength(1);
    const job = jobs[0]!;
    const c = mainContainer(job);
    expect(c.image).toBe(`${IMAGE_PREFIX}migrate`);
    expect(['Never', 'OnFailure']).toContain(job.spec?.template?.spec.restartPolicy);
    const settings = containerSettings(c);
    expect(settings.get('DATABASE_URL')).toMatch(/^secret:/);
    expect(
      job.spec?.template?.spec.securityContext?.runAsNonRoot ?? c.securityContext?.runAsNonRoot,
    ).toBe(true);
    // Ordered before the rollout (Argo CD PreSync hook; kubectl order in k8s/README.md).
    expect(job.metadata.annotations?.['argocd.argoproj.io/hook']).toBe('PreSync');
  });
});
