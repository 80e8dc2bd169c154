// The Kubernetes overlays as a cluster would receive them: every overlay (and the base) is
// rendered (tests/test/kustomize.ts, compared with `kubectl kustomize` where kubectl is
// installed) and each object is validated against the Kubernetes, Gateway API and
// Prometheus Operator JSON schemas (the kubernetes-models packages, offline; the
// CloudNativePG example's Cluster and ScheduledBackup against the minimal schemas in
// tests/schemas/cloudnative-pg). Then the
// rendered objects are checked for what a schema cannot know: pinned images, the
// GatewayClass, the public route never reaching `ops`, the NetworkPolicies allowing
// exactly the flows the processes need (evaluated like a CNI would), and alerts and
// dashboard panels built only on metrics the code produces.
// DEPLOYMENT_ROOT points the checks at another checkout (used to see them fail).
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { parse, parseAllDocuments } from 'yaml';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { Gateway } from '@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/Gateway';
import { HTTPRoute } from '@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPRoute';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { type K8sObject, idOf, renderKustomization, yamlObjects } from './kustomize.js';

const ROOT =
  process.env.DEPLOYMENT_ROOT ??
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const K8S = path.join(ROOT, 'k8s');
const NAMESPACE = 'svc';
const OPS_PORT = 9090;
const IMAGE_PREFIX = 'ghcr.io/svc-platform/';

/**
 * A kind without a kubernetes-models package (the CloudNativePG CRDs), validated against a
 * minimal schema written into tests/schemas: every object there refuses fields it does not
 * list, which stands in for the TypeScript check of the other kinds.
 */
function vendoredModel(file: string): new (data: never) => { validate(): void } {
  const schema = parse(readFileSync(path.join(ROOT, 'tests/schemas', file), 'utf8')) as object;
  const check = new Ajv2020({ allErrors: true, strict: true }).compile(schema);
  return class {
    constructor(private readonly data: unknown) {}
    validate(): void {
      if (!check(this.data))
        throw new Error(
          (check.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; '),
        );
    }
  };
}
const VENDORED: Record<string, new (data: never) => { validate(): void }> = {
  'postgresql.cnpg.io/v1/Cluster': vendoredModel('cloudnative-pg/cluster.schema.yaml'),
  'postgresql.cnpg.io/v1/ScheduledBackup': vendoredModel('cloudnative-pg/scheduledbackup.schema.yaml'),
};

/** Every kind the overlays may hold, with the model whose JSON schema validates it. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  ...VENDORED,
  'v1/Namespace': Namespace,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'gateway.networking.k8s.io/v1/Gateway': Gateway,
  'gateway.networking.k8s.io/v1/HTTPRoute': HTTPRoute,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
};

/**
 * The same kinds as TypeScript interfaces of those packages. The JSON schemas accept
 * unknown fields; TypeScript's excess-property check on an object literal does not, so a
 * misspelt or misplaced field (`timeout` for `timeouts`, `port` one level too deep) fails.
 */
const TYPES: Record<string, [module: string, type: string]> = Object.fromEntries(
  Object.keys(MODELS)
    .filter((key) => !(key in VENDORED))
    .map((key) => {
      const [group, version, kind] =
        key.includes('.') || key.split('/').length === 3 ? key.split('/') : ['', ...key.split('/')];
      const pkg = group?.startsWith('gateway.networking')
        ? '@kubernetes-models/gateway-api'
        : group?.startsWith('monitoring.coreos')
          ? '@kubernetes-models/prometheus-operator'
          : 'kubernetes-models';
      return [key, [`${pkg}/${group ? `${group}/` : ''}${version}/${kind}`, `I${kind}`]];
    }),
);

/**
 * Type-checks every object as a literal of its interface, all renderings in one program
 * (one compile); returns `id: message` lines per rendering.
 */
function excessFieldErrors(renderings: Map<string, K8sObject[]>): Map<string, string[]> {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), '__k8s_objects__.ts');
  const all = [...renderings].flatMap(([target, objects]) =>
    objects.filter((o) => !(`${o.apiVersion}/${o.kind}` in VENDORED)).map((o) => ({ target, o })),
  );
  const lines = all.map(({ o }, i) => {
    const [module, type] = TYPES[`${o.apiVersion}/${o.kind}`]!;
    return `import type { ${type} as T${i} } from '${module}';`;
  });
  const firstObjectLine = lines.length;
  all.forEach(({ o }, i) => lines.push(`export const o${i}: T${i} = ${JSON.stringify(o)};`));
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) =>
    name === file ? ts.createSourceFile(name, source, lang) : getSourceFile(name, lang, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  const out = new Map([...renderings.keys()].map((target) => [target, [] as string[]]));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const line =
      d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
    const owner = all[line - firstObjectLine];
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    // A diagnostic outside the object lines (an import) belongs to every rendering.
    for (const target of owner ? [owner.target] : out.keys())
      out.get(target)!.push(`${owner ? idOf(owner.o) : `line ${line}`}: ${message}`);
  }
  return out;
}

/** Public port of every process (the worker's serves only /healthz). */
const PORTS: Record<string, number> = {
  gateway: 8080,
  auth: 4001,
  'app-store': 4002,
  sites: 4003,
  'sites-worker': 4013,
  chat: 4004,
  translate: 4005,
  realtime: 4006,
  web: 4007,
  mcp: 4008,
};
const UPSTREAMS = ['auth', 'app-store', 'sites', 'chat', 'translate', 'realtime', 'web', 'mcp'];
/** The services whose REST endpoints the MCP tools call. */
const CALLED_BY_MCP = ['app-store', 'sites', 'chat', 'translate'];
const POSTGRES_USERS = ['auth', 'app-store', 'sites', 'sites-worker', 'chat', 'svc-migrate'];
const REDIS_USERS = [
  'gateway',
  'auth',
  'app-store',
  'sites',
  'sites-worker',
  'chat',
  'translate',
  'realtime',
];
/** Any public address and port (scraping, the CAPTCHA verifier, the daily background). */
const INTERNET_ANY_PORT = ['sites', 'sites-worker'];
/** HTTPS to public addresses only (Resend, Anthropic). */
const INTERNET_HTTPS = ['auth', 'translate'];

type Labels = Record<string, string>;
/** A network endpoint: a pod (namespace, labels, named ports) or an address outside. */
type Peer =
  | {
      pod: true;
      namespace: string;
      nsLabels: Labels;
      labels: Labels;
      ports: { name?: string; containerPort: number }[];
    }
  | { pod: false; ip: string };

/** Where each rendering puts PostgreSQL and Redis (the overlays' placeholders replaced). */
const nsPod = (namespace: string, name: string): Peer => ({
  pod: true,
  namespace,
  nsLabels: { 'kubernetes.io/metadata.name': namespace },
  labels: { 'app.kubernetes.io/name': name },
  ports: [],
});
const ip = (address: string): Peer => ({ pod: false, ip: address });
const TARGETS: Record<string, { dir: string; postgres: Peer; redis: Peer }> = {
  base: { dir: 'base', postgres: ip('192.0.2.10'), redis: ip('192.0.2.11') },
  development: {
    dir: 'overlays/development',
    postgres: nsPod('svc-data', 'postgresql'),
    redis: nsPod('svc-data', 'redis'),
  },
  production: { dir: 'overlays/production', postgres: ip('10.40.0.10'), redis: ip('10.40.0.11') },
  // Production with PostgreSQL from CloudNativePG (k8s/components/cloudnative-pg): its
  // instances are pods of the namespace svc, under its policies.
  'cloudnative-pg': {
    dir: 'examples/cloudnative-pg',
    postgres: {
      pod: true,
      namespace: NAMESPACE,
      nsLabels: { 'kubernetes.io/metadata.name': NAMESPACE },
      labels: { 'cnpg.io/cluster': 'svc-db', 'cnpg.io/instanceRole': 'replica' },
      ports: [{ name: 'postgresql', containerPort: 5432 }],
    },
    redis: ip('10.40.0.11'),
  },
};
const OVERLAYS = ['development', 'production'];

const rendered = new Map(
  Object.entries(TARGETS).map(([name, t]) => [name, renderKustomization(path.join(K8S, t.dir))]),
);
let fieldErrors: Map<string, string[]> | undefined;
const objectsOf = (target: string) => rendered.get(target) ?? [];
const ofKind = (target: string, kind: string) => objectsOf(target).filter((o) => o.kind === kind);
const named = (target: string, kind: string, name: string) =>
  ofKind(target, kind).find((o) => o.metadata.name === name);

// ---------------------------------------------------------------------------------------
// Loose shapes of the fields read below.

interface Container {
  name: string;
  image?: string;
  ports?: { name?: string; containerPort: number }[];
}
interface PodTemplate {
  metadata?: { labels?: Labels };
  spec: { containers: Container[] };
}
const podTemplate = (o: K8sObject) => (o.spec as { template?: PodTemplate } | undefined)?.template;

interface Selector {
  matchLabels?: Labels;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}
interface PolicyPeer {
  podSelector?: Selector;
  namespaceSelector?: Selector;
  ipBlock?: { cidr: string; except?: string[] };
}
interface PolicyRule {
  from?: PolicyPeer[];
  to?: PolicyPeer[];
  ports?: { protocol?: string; port?: number | string }[];
}
interface PolicySpec {
  podSelector: Selector;
  policyTypes?: string[];
  ingress?: PolicyRule[];
  egress?: PolicyRule[];
}

// ---------------------------------------------------------------------------------------
// NetworkPolicy semantics (networking.k8s.io/v1), for the checks of the flows.

function selects(sel: Selector | undefined, labels: Labels): boolean {
  if (!sel) return true;
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = e.key in labels;
    const value = labels[e.key];
    const ok =
      e.operator === 'In'
        ? has && (e.values ?? []).includes(value!)
        : e.operator === 'NotIn'
          ? !has || !(e.values ?? []).includes(value!)
          : e.operator === 'Exists'
            ? has
            : e.operator === 'DoesNotExist'
              ? !has
              : (() => {
                  throw new Error(`unknown operator ${e.operator}`);
                })();
    if (!ok) return false;
  }
  return true;
}

function ipv4(a: string): number | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(a);
  return m ? m.slice(1).reduce((n, x) => n * 256 + Number(x), 0) : undefined;
}
function inCidr(address: string, cidr: string): boolean {
  const [net, bits] = cidr.split('/');
  const a = ipv4(address);
  const n = ipv4(net!);
  if (a === undefined || n === undefined) return false; // IPv6 blocks: our peers are IPv4
  const size = 2 ** (32 - Number(bits));
  return Math.floor(a / size) === Math.floor(n / size);
}

function peerMatches(p: PolicyPeer, policyNamespace: string, peer: Peer): boolean {
  if (p.ipBlock) {
    // ipBlock is meant for addresses outside the cluster; pods are matched by selectors.
    return (
      !peer.pod &&
      inCidr(peer.ip, p.ipBlock.cidr) &&
      !(p.ipBlock.except ?? []).some((c) => inCidr(peer.ip, c))
    );
  }
  if (!peer.pod) return false;
  if (p.namespaceSelector) {
    if (!selects(p.namespaceSelector, peer.nsLabels)) return false;
  } else if (peer.namespace !== policyNamespace) return false;
  return selects(p.podSelector, peer.labels);
}

function portMatches(rule: PolicyRule, dest: Peer, port: number, protocol: string): boolean {
  if (!rule.ports || rule.ports.length === 0) return true;
  return rule.ports.some((rp) => {
    if ((rp.protocol ?? 'TCP') !== protocol) return false;
    if (rp.port === undefined) return true;
    if (typeof rp.port === 'number') return rp.port === port;
    // A named port is the destination pod's container port of that name.
    return dest.pod && dest.ports.some((cp) => cp.name === rp.port && cp.containerPort === port);
  });
}

function policies(target: string) {
  return ofKind(target, 'NetworkPolicy').map((o) => ({
    namespace: o.metadata.namespace ?? '',
    spec: o.spec as PolicySpec,
  }));
}

/** Would the cluster let `from` open a connection to `to` on port/protocol? */
function allowed(target: string, from: Peer, to: Peer, port: number, protocol = 'TCP'): boolean {
  const all = policies(target);
  const side = (self: Peer, type: 'Ingress' | 'Egress', other: Peer, dest: Peer) => {
    if (!self.pod || self.namespace !== NAMESPACE) return true; // not governed by our policies
    const mine = all.filter(
      (p) =>
        p.namespace === self.namespace &&
        selects(p.spec.podSelector, self.labels) &&
        (p.spec.policyTypes ?? ['Ingress']).includes(type),
    );
    if (mine.length === 0) return true;
    return mine.some((p) =>
      ((type === 'Ingress' ? p.spec.ingress : p.spec.egress) ?? []).some(
        (rule) =>
          ((type === 'Ingress' ? rule.from : rule.to) ?? []).some((peer) =>
            peerMatches(peer, p.namespace, other),
          ) && portMatches(rule, dest, port, protocol),
      ),
    );
  };
  return side(from, 'Egress', to, to) && side(to, 'Ingress', from, to);
}

const SVC_NS_LABELS = (target: string): Labels => ({
  'kubernetes.io/metadata.name': NAMESPACE,
  ...(named(target, 'Namespace', NAMESPACE)?.metadata.labels ?? {}),
});

/** The pods of a rendering: each Deployment's and the Job's template. */
function pods(target: string): Map<string, Peer & { pod: true }> {
  const out = new Map<string, Peer & { pod: true }>();
  for (const o of [...ofKind(target, 'Deployment'), ...ofKind(target, 'Job')]) {
    const t = podTemplate(o)!;
    out.set(o.metadata.name, {
      pod: true,
      namespace: o.metadata.namespace ?? '',
      nsLabels: SVC_NS_LABELS(target),
      labels: t.metadata?.labels ?? {},
      ports: t.spec.containers.flatMap((c) => c.ports ?? []),
    });
  }
  return out;
}

const DATA_PLANE: Peer = {
  pod: true,
  namespace: 'envoy-gateway-system',
  nsLabels: {
    'kubernetes.io/metadata.name': 'envoy-gateway-system',
    'svc-platform/gateway-data-plane': 'true',
  },
  labels: { 'app.kubernetes.io/name': 'envoy' },
  ports: [],
};
const PROMETHEUS: Peer = {
  pod: true,
  namespace: 'monitoring',
  nsLabels: { 'kubernetes.io/metadata.name': 'monitoring' },
  labels: { 'app.kubernetes.io/name': 'prometheus' },
  ports: [],
};
const OTHER_NAMESPACE: Peer = {
  pod: true,
  namespace: 'default',
  nsLabels: { 'kubernetes.io/metadata.name': 'default' },
  labels: { app: 'curl' },
  ports: [],
};
const KUBE_DNS: Peer = {
  pod: true,
  namespace: 'kube-system',
  nsLabels: { 'kubernetes.io/metadata.name': 'kube-system' },
  labels: { 'k8s-app': 'kube-dns' },
  ports: [],
};
/** Two public addresses, one in each half of the IPv4 space. */
const PUBLIC_HOSTS = [ip('93.184.216.34'), ip('151.101.1.69')];

// ---------------------------------------------------------------------------------------

describe.each(Object.keys(TARGETS))('k8s %s, rendered', (target) => {
  const objects = objectsOf(target);

  it('renders the same objects as kubectl kustomize (where kubectl is installed)', () => {
    expect(objects.length).toBeGreaterThan(40);
    // KUBECTL=none shows what a machine without kubectl runs.
    const kubectl = spawnSync(
      process.env.KUBECTL ?? 'kubectl',
      ['kustomize', path.join(K8S, TARGETS[target]!.dir)],
      { encoding: 'utf8' },
    );
    if (kubectl.error) {
      // CI machines need no kubectl: the renderer refuses every field it does not know.
      console.warn(`kubectl is not installed: ${target} rendered by tests/test/kustomize.ts only`);
      return;
    }
    expect(kubectl.stderr).toBe('');
    const theirs = parseAllDocuments(kubectl.stdout).map((d) => d.toJS() as K8sObject);
    const byId = (list: K8sObject[]) => Object.fromEntries(list.map((o) => [idOf(o), o]));
    expect(byId(objects)).toEqual(byId(theirs));
  });

  it('every object is valid against its Kubernetes / Gateway API / Prometheus Operator schema', () => {
    for (const o of objects) {
      const Model = MODELS[`${o.apiVersion}/${o.kind}`];
      expect({ id: idOf(o), known: Model !== undefined }).toEqual({ id: idOf(o), known: true });
      let error = '';
      try {
        new Model!(o as never).validate();
      } catch (err) {
        error = (err as Error).message;
      }
      expect({ id: idOf(o), error }).toEqual({ id: idOf(o), error: '' });
    }
  });

  it('has no field the Kubernetes / Gateway API / Prometheus Operator types do not know', () => {
    fieldErrors ??= excessFieldErrors(rendered);
    expect(fieldErrors.get(target)).toEqual([]);
  });

  it('puts everything but the Namespace into the namespace svc', () => {
    for (const o of objects) {
      expect({ id: idOf(o), ns: o.metadata.namespace }).toEqual({
        id: idOf(o),
        ns: o.kind === 'Namespace' ? undefined : NAMESPACE,
      });
    }
  });

  it('holds no Ingress: the Gateway API is the public entry', () => {
    expect(objects.filter((o) => o.kind === 'Ingress')).toEqual([]);
  });

  describe('Gateway API', () => {
    const gateway = () =>
      named(target, 'Gateway', 'svc')!.spec as {
        gatewayClassName: string;
        listeners: {
          name: string;
          protocol: string;
          port: number;
          hostname?: string;
          tls?: { mode?: string; certificateRefs?: { kind?: string; name: string }[] };
        }[];
      };
    interface Route {
      parentRefs: { name: string; sectionName?: string }[];
      hostnames?: string[];
      rules: {
        matches?: { path?: { type: string; value: string } }[];
        backendRefs?: { name: string; port?: number }[];
        filters?: { type: string; requestRedirect?: { scheme?: string; statusCode?: number } }[];
        timeouts?: { request?: string };
      }[];
    }
    const routes = () => ofKind(target, 'HTTPRoute').map((o) => o.spec as Route);

    it('has one Gateway: HTTPS with the TLS Secret, HTTP only to redirect', () => {
      expect(ofKind(target, 'Gateway')).toHaveLength(1);
      const g = gateway();
      const https = g.listeners.find((l) => l.protocol === 'HTTPS');
      expect(https?.port).toBe(443);
      expect(https?.tls?.mode).toBe('Terminate');
      expect(https?.tls?.certificateRefs).toEqual([{ kind: 'Secret', name: 'svc-tls' }]);
      const http = g.listeners.find((l) => l.protocol === 'HTTP');
      expect(http?.port).toBe(80);
      // Every route on the HTTP listener only redirects to HTTPS.
      const onHttp = routes().filter((r) => r.parentRefs.some((p) => p.sectionName === http?.name));
      expect(onHttp).toHaveLength(1);
      for (const rule of onHttp[0]!.rules) {
        expect(rule.backendRefs ?? []).toEqual([]);
        expect(rule.filters).toEqual([
          { type: 'RequestRedirect', requestRedirect: { scheme: 'https', statusCode: 301 } },
        ]);
      }
      // Every route is bound to a listener of this Gateway, on its host names.
      for (const r of routes()) {
        for (const p of r.parentRefs) {
          expect(p.name).toBe('svc');
          expect(g.listeners.map((l) => l.name)).toContain(p.sectionName);
        }
        expect(r.hostnames).toEqual([https?.hostname]);
      }
      expect(http?.hostname).toBe(https?.hostname);
    });

    it(
      target === 'base'
        ? 'leaves gatewayClassName to the overlays'
        : 'names the GatewayClass of the overlay',
      () => {
        const cls = gateway().gatewayClassName;
        if (target === 'base') expect(cls).toBe('replaced-by-overlay');
        else expect(cls).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
        if (target !== 'base') expect(cls).not.toBe('replaced-by-overlay');
      },
    );

    it('routes every path, the WebSocket /api/ws included, to the gateway Service http port and never to ops', () => {
      const svcPorts = (
        named(target, 'Service', 'gateway')!.spec as { ports: { name: string; port: number }[] }
      ).ports;
      const httpPort = svcPorts.find((p) => p.name === 'http')!.port;
      const onHttps = routes().filter((r) => r.parentRefs.some((p) => p.sectionName === 'https'));
      const backends = onHttps.flatMap((r) => r.rules.flatMap((rule) => rule.backendRefs ?? []));
      expect(backends.length).toBeGreaterThan(0);
      for (const b of backends) expect(b).toEqual({ name: 'gateway', port: httpPort });
      expect(backends.some((b) => b.port === OPS_PORT)).toBe(false);
      const rules = onHttps.flatMap((r) => r.rules);
      const root = rules.find((r) =>
        r.matches?.some((m) => m.path?.type === 'PathPrefix' && m.path.value === '/'),
      );
      expect(root).toBeDefined();
      // The WebSocket's own rule: no request timeout cuts an open socket.
      const ws = rules.find((r) => r.matches?.some((m) => m.path?.value === '/api/ws'));
      expect(ws?.timeouts?.request).toBe('0s');
      expect(ws?.backendRefs).toEqual([{ name: 'gateway', port: httpPort }]);
    });
  });

  it('pins every image of the overlay to a tag, never latest', () => {
    const images = objects.flatMap(
      (o) => podTemplate(o)?.spec.containers.map((c) => c.image ?? '') ?? [],
    );
    expect(images.length).toBe(11);
    for (const image of images) {
      expect(image.startsWith(IMAGE_PREFIX)).toBe(true);
      if (target === 'base') continue;
      const tag = /:([^:/@]+)$/.exec(image)?.[1];
      expect({ image, pinned: tag !== undefined || image.includes('@sha256:') }).toEqual({
        image,
        pinned: true,
      });
      expect(tag).not.toBe('latest');
      // Production runs a release: a version (or a digest), not a branch or commit tag.
      if (target === 'production')
        expect({ image, version: /:v?\d+\.\d+\.\d+$|@sha256:[0-9a-f]{64}$/.test(image) }).toEqual({
          image,
          version: true,
        });
    }
  });

  it('keeps the replica counts sane: no fixed count under an HPA, min <= max', () => {
    const hpas = ofKind(target, 'HorizontalPodAutoscaler');
    for (const h of hpas) {
      const s = h.spec as {
        scaleTargetRef: { name: string };
        minReplicas: number;
        maxReplicas: number;
      };
      expect(s.minReplicas).toBeGreaterThanOrEqual(1);
      expect(s.maxReplicas).toBeGreaterThan(s.minReplicas);
      const d = named(target, 'Deployment', s.scaleTargetRef.name);
      expect((d?.spec as { replicas?: number }).replicas).toBeUndefined();
    }
    for (const d of ofKind(target, 'Deployment')) {
      const scaled = hpas.some(
        (h) =>
          (h.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name === d.metadata.name,
      );
      if (!scaled)
        expect((d.spec as { replicas?: number }).replicas).toBeGreaterThanOrEqual(
          target === 'development' ? 1 : 2,
        );
    }
    if (target === 'production') {
      for (const h of hpas)
        expect((h.spec as { minReplicas: number }).minReplicas).toBeGreaterThanOrEqual(2);
    }
  });

  describe('NetworkPolicies', () => {
    const all = pods(target);
    const { postgres, redis } = TARGETS[target]!;

    it('deny everything by default, for every pod of every Deployment and the Job', () => {
      const deny = policies(target).find(
        (p) => Object.keys(p.spec.podSelector).length === 0 && !p.spec.ingress && !p.spec.egress,
      );
      expect(deny?.spec.policyTypes?.sort()).toEqual(['Egress', 'Ingress']);
      expect([...all.keys()].sort()).toEqual([...Object.keys(PORTS), 'svc-migrate'].sort());
      // Every pod is selected by at least one policy with an ingress and one with an egress type.
      for (const [name, p] of all) {
        for (const type of ['Ingress', 'Egress']) {
          const hit = policies(target).some(
            (x) => selects(x.spec.podSelector, p.labels) && x.spec.policyTypes?.includes(type),
          );
          expect({ name, type, hit }).toEqual({ name, type, hit: true });
        }
      }
    });

    it('allow exactly the calls between the pods that the services make', () => {
      const expected = new Set([
        ...UPSTREAMS.map((u) => `gateway -> ${u}:${PORTS[u]}`),
        'web -> gateway:8080',
        'realtime -> chat:4004',
        ...CALLED_BY_MCP.map((s) => `mcp -> ${s}:${PORTS[s]}`),
        // The data export's internal calls (docs/decisions/034-data-export.md).
        ...['app-store', 'sites', 'chat'].map((s) => `auth -> ${s}:${PORTS[s]}`),
      ]);
      const actual = new Set<string>();
      for (const [fromName, from] of all) {
        for (const [toName, to] of all) {
          for (const port of to.ports) {
            if (allowed(target, from, to, port.containerPort))
              actual.add(`${fromName} -> ${toName}:${port.containerPort}`);
          }
        }
      }
      expect([...actual].sort()).toEqual([...expected].sort());
    });

    it('let the Gateway data plane reach only the gateway http port, and nobody else in', () => {
      for (const [name, p] of all) {
        for (const port of p.ports) {
          const ok = allowed(target, DATA_PLANE, p, port.containerPort);
          expect({ name, port: port.containerPort, ok }).toEqual({
            name,
            port: port.containerPort,
            ok: name === 'gateway' && port.containerPort === PORTS.gateway,
          });
          expect(allowed(target, OTHER_NAMESPACE, p, port.containerPort)).toBe(false);
        }
      }
    });

    it('let Prometheus (namespace monitoring) reach every ops port and nothing else', () => {
      for (const [name, p] of all) {
        for (const port of p.ports) {
          const ok = allowed(target, PROMETHEUS, p, port.containerPort);
          expect({ name, port: port.containerPort, ok }).toEqual({
            name,
            port: port.containerPort,
            ok: port.name === 'ops',
          });
        }
      }
    });

    it('let every pod resolve names through kube-dns (UDP and TCP 53) and nothing else in kube-system', () => {
      for (const [name, p] of all) {
        expect({
          name,
          udp: allowed(target, p, KUBE_DNS, 53, 'UDP'),
          tcp: allowed(target, p, KUBE_DNS, 53, 'TCP'),
        }).toEqual({ name, udp: true, tcp: true });
        expect(allowed(target, p, KUBE_DNS, 443)).toBe(false);
      }
    });

    it('let exactly the users of PostgreSQL and Redis reach them', () => {
      for (const [name, p] of all) {
        expect({ name, postgres: allowed(target, p, postgres, 5432) }).toEqual({
          name,
          postgres: POSTGRES_USERS.includes(name),
        });
        expect({ name, redis: allowed(target, p, redis, 6379) }).toEqual({
          name,
          redis: REDIS_USERS.includes(name),
        });
        // Only the database port (the scrapers' internet rule may match the base's
        // placeholder addresses, which are public documentation addresses).
        if (!INTERNET_ANY_PORT.includes(name))
          expect(allowed(target, p, postgres, 22) || allowed(target, p, redis, 22)).toBe(false);
      }
    });

    it('let only the callers of third parties out to the internet, never to private or metadata addresses', () => {
      for (const [name, p] of all) {
        const anyPort = INTERNET_ANY_PORT.includes(name);
        const https = anyPort || INTERNET_HTTPS.includes(name);
        for (const host of PUBLIC_HOSTS) {
          expect({ name, https: allowed(target, p, host, 443) }).toEqual({ name, https });
          expect({ name, other: allowed(target, p, host, 8443) }).toEqual({ name, other: anyPort });
        }
        for (const inside of [
          '10.1.2.3',
          '172.20.0.5',
          '192.168.1.1',
          '169.254.169.254',
          '100.64.0.1',
          '127.0.0.1',
        ]) {
          for (const port of [80, 443])
            expect({ name, inside, ok: allowed(target, p, ip(inside), port) }).toEqual({
              name,
              inside,
              ok: false,
            });
        }
      }
    });
  });

  describe('monitoring', () => {
    it('a ServiceMonitor scrapes /metrics on the ops port of every Service', () => {
      const monitors = ofKind(target, 'ServiceMonitor');
      expect(monitors).toHaveLength(1);
      const spec = monitors[0]!.spec as {
        selector: Selector;
        endpoints: { port: string; path?: string }[];
      };
      expect(spec.endpoints.map((e) => [e.port, e.path])).toEqual([['ops', '/metrics']]);
      const services = ofKind(target, 'Service');
      expect(services.map((s) => s.metadata.name).sort()).toEqual(Object.keys(PORTS).sort());
      for (const s of services) {
        expect({
          service: s.metadata.name,
          selected: selects(spec.selector, s.metadata.labels ?? {}),
        }).toEqual({ service: s.metadata.name, selected: true });
        const ops = (s.spec as { ports: { name: string; port: number }[] }).ports.find(
          (p) => p.name === 'ops',
        );
        expect(ops?.port).toBe(OPS_PORT);
      }
    });

    it('the Grafana dashboard ConfigMap carries the sidecar label and valid JSON', () => {
      const cm = named(target, 'ConfigMap', 'svc-grafana-dashboard');
      expect(cm?.metadata.labels?.grafana_dashboard).toBe('1');
      const json = JSON.parse(
        Object.values((cm as unknown as { data: Record<string, string> }).data)[0]!,
      ) as { uid: string; panels: unknown[] };
      expect(json.uid).toBe('svc-platform');
      expect(json.panels.length).toBeGreaterThan(5);
    });
  });
});

// ---------------------------------------------------------------------------------------
// Alerts and panels use only series that exist: produced by this repository (the file that
// registers each one, checked below) or by Prometheus / kube-state-metrics themselves.

/** Metric -> the source file that registers it (k8s/README.md "Monitoring" repeats this). */
const PRODUCED: Record<string, string> = {
  http_requests_total: 'packages/service-kit/src/ops/metrics.ts',
  http_request_duration_seconds: 'packages/service-kit/src/ops/metrics.ts',
  gateway_requests_total: 'gateway/src/ops/metrics.ts',
  gateway_request_duration_seconds: 'gateway/src/ops/metrics.ts',
  queue_jobs: 'packages/service-kit/src/queues/queue-metrics.ts',
  job_outbox_waiting: 'packages/service-kit/src/queues/job-outbox.ts',
  job_outbox_relay_failures_total: 'packages/service-kit/src/queues/job-outbox.ts',
  outbox_jobs_relayed_total: 'packages/service-kit/src/queues/job-outbox.ts',
  system_message_outbox_waiting: 'packages/service-kit/src/queues/system-message-outbox.ts',
  system_message_relay_failures_total: 'packages/service-kit/src/queues/system-message-outbox.ts',
  system_messages_relayed_total: 'packages/service-kit/src/queues/system-message-outbox.ts',
  realtime_connections: 'services/realtime/src/ops/realtime-metrics.ts',
  realtime_connections_opened_total: 'services/realtime/src/ops/realtime-metrics.ts',
  realtime_server_disconnects_total: 'services/realtime/src/ops/realtime-metrics.ts',
  realtime_events_received_total: 'services/realtime/src/ops/realtime-metrics.ts',
  realtime_broadcast_duration_seconds: 'services/realtime/src/ops/realtime-metrics.ts',
  app_store_apps_purge_overdue: 'services/app-store/src/actions/purge-withdrawn-apps.ts',
  app_store_purge_sweep_failures_total: 'services/app-store/src/actions/purge-withdrawn-apps.ts',
  user_deletion_jobs_total: 'services/auth/src/worker/deletion-worker.ts',
  chat_retention_overdue_seconds: 'services/chat/src/actions/sweep-old-messages.ts',
  chat_retention_sweep_failures_total: 'services/chat/src/actions/sweep-old-messages.ts',
  db_replica_in_use: 'packages/service-kit/src/data/replica-monitor.ts',
  db_replica_lag_seconds: 'packages/service-kit/src/data/replica-monitor.ts',
  db_reads_total: 'packages/service-kit/src/data/read-router.ts',
};
/** Series of Prometheus itself (up) and of kube-state-metrics. */
const EXTERNAL = new Set([
  'up',
  'kube_deployment_status_replicas_unavailable',
  'kube_pod_container_status_restarts_total',
]);

function metricsIn(expr: string): string[] {
  const names = [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)].map((m) => m[1]!);
  return names.map((n) => {
    const base = n.replace(/_(bucket|sum|count)$/, '');
    return base !== n && PRODUCED[base] ? base : n;
  });
}

describe('k8s alerts and dashboard', () => {
  const base = objectsOf('base');
  const rule = named('base', 'PrometheusRule', 'svc-platform')!;
  const alerts = (
    rule.spec as { groups: { rules: { alert: string; expr: string }[] }[] }
  ).groups.flatMap((g) => g.rules);
  const dashboard = JSON.parse(
    Object.values(
      (
        named('base', 'ConfigMap', 'svc-grafana-dashboard') as unknown as {
          data: Record<string, string>;
        }
      ).data,
    )[0]!,
  ) as { panels: { title: string; targets: { expr: string }[] }[] };
  const readme = readFileSync(path.join(K8S, 'README.md'), 'utf8');

  it('alert on 5xx rate, p99 latency, queue backlog and failed jobs, outbox backlog, WebSocket drops, readiness and restarts', () => {
    expect(base.length).toBeGreaterThan(0);
    const used = new Set(alerts.flatMap((a) => metricsIn(a.expr)));
    for (const m of [
      'gateway_requests_total',
      'http_requests_total',
      'gateway_request_duration_seconds',
      'http_request_duration_seconds',
      'queue_jobs',
      'job_outbox_waiting',
      'system_message_outbox_waiting',
      'realtime_server_disconnects_total',
      'realtime_connections',
      'up',
      'kube_deployment_status_replicas_unavailable',
      'kube_pod_container_status_restarts_total',
    ])
      expect({ m, used: used.has(m) }).toEqual({ m, used: true });
    expect(alerts.some((a) => /histogram_quantile\(0\.99/.test(a.expr))).toBe(true);
    expect(alerts.some((a) => /state="failed"/.test(a.expr))).toBe(true);
  });

  it('use only metrics that exist, registered where the README says', () => {
    const exprs = [
      ...alerts.map((a) => a.expr),
      ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)),
    ];
    const used = new Set(exprs.flatMap(metricsIn));
    for (const m of used) {
      const file = PRODUCED[m];
      expect({ m, known: file !== undefined || EXTERNAL.has(m) }).toEqual({ m, known: true });
      if (file) {
        expect({
          m,
          registered: readFileSync(path.join(ROOT, file), 'utf8').includes(`'${m}'`),
        }).toEqual({ m, registered: true });
        // The README table names the metric and the file that produces it on one line.
        const line = readme.split('\n').find((l) => l.includes(`\`${m}\``) && l.includes(file));
        expect({ m, inReadme: line !== undefined }).toEqual({ m, inReadme: true });
      }
    }
    // Every selector is limited to the namespace svc.
    for (const e of exprs)
      for (const sel of e.match(/[a-z_]+\{[^}]*\}/g) ?? [])
        expect(sel).toContain('namespace="svc"');
  });

  it('the k8s README names every alert and every dashboard panel', () => {
    for (const a of alerts)
      expect({ alert: a.alert, inReadme: readme.includes(a.alert) }).toEqual({
        alert: a.alert,
        inReadme: true,
      });
    for (const p of dashboard.panels)
      expect({ panel: p.title, inReadme: readme.includes(p.title) }).toEqual({
        panel: p.title,
        inReadme: true,
      });
  });
});

describe('k8s secrets', () => {
  const template = yamlObjects(path.join(K8S, 'base', 'secret.example.yaml'));
  const keys = Object.keys(
    (template[0] as unknown as { stringData: Record<string, string> }).stringData,
  );
  const readme = readFileSync(path.join(K8S, 'README.md'), 'utf8');

  it.each(OVERLAYS)(
    '%s: every secretKeyRef names a key of secret.example.yaml, and every key is used',
    (overlay) => {
      const refs = new Set<string>();
      for (const o of objectsOf(overlay)) {
        for (const c of podTemplate(o)?.spec.containers ?? []) {
          for (const e of (
            c as { env?: { valueFrom?: { secretKeyRef?: { name: string; key: string } } }[] }
          ).env ?? []) {
            const ref = e.valueFrom?.secretKeyRef;
            if (!ref) continue;
            expect(ref.name).toBe('svc-secrets');
            refs.add(ref.key);
          }
        }
      }
      for (const key of refs)
        expect({ key, inTemplate: keys.includes(key) }).toEqual({ key, inTemplate: true });
      expect([...refs].sort()).toEqual([...keys].sort());
    },
  );

  it('the k8s README lists every key of the Secret', () => {
    const section = readme.slice(readme.indexOf('## Secrets'));
    for (const key of keys)
      expect({ key, listed: section.includes(`\`${key}\``) }).toEqual({ key, listed: true });
  });
});

// ---------------------------------------------------------------------------------------
// The CloudNativePG example (k8s/components/cloudnative-pg, k8s/README.md "Read replicas").

describe('k8s CloudNativePG example', () => {
  const target = 'cloudnative-pg';
  const cluster = ofKind(target, 'Cluster')[0]!;
  const spec = cluster.spec as {
    instances: number;
    bootstrap: { initdb: { database: string; owner: string } };
    backup: { barmanObjectStore: { destinationPath: string; wal?: unknown } };
  };
  const name = cluster.metadata.name;
  const instance = (role: string): Peer => ({
    pod: true,
    namespace: NAMESPACE,
    nsLabels: { 'kubernetes.io/metadata.name': NAMESPACE },
    labels: { 'cnpg.io/cluster': name, 'cnpg.io/instanceRole': role },
    ports: [{ name: 'postgresql', containerPort: 5432 }],
  });
  const OPERATOR: Peer = {
    pod: true,
    namespace: 'cnpg-system',
    nsLabels: { 'kubernetes.io/metadata.name': 'cnpg-system' },
    labels: { 'app.kubernetes.io/name': 'cloudnative-pg' },
    ports: [],
  };

  it('has one Cluster of three instances, archiving to an object store, backed up daily', () => {
    expect(ofKind(target, 'Cluster')).toHaveLength(1);
    expect(spec.instances).toBe(3);
    expect(spec.backup.barmanObjectStore.destinationPath).toMatch(/^s3:\/\//);
    expect(spec.backup.barmanObjectStore.wal).toBeDefined();
    const backups = ofKind(target, 'ScheduledBackup').map(
      (o) => o.spec as { cluster: { name: string }; method: string; schedule: string },
    );
    expect(backups).toHaveLength(1);
    expect(backups[0]).toMatchObject({ cluster: { name }, method: 'barmanObjectStore' });
    // Neither lives in the other renderings: the component is optional.
    for (const other of Object.keys(TARGETS).filter((t) => t !== target))
      expect(ofKind(other, 'Cluster')).toEqual([]);
  });

  it('wires the primary (-rw) to DATABASE_URL and the standbys (-ro) to DATABASE_REPLICA_URLS', () => {
    const config = named(target, 'ConfigMap', 'svc-config') as unknown as {
      data: Record<string, string>;
    };
    expect(config.data.DATABASE_REPLICA_URLS).toBe(
      `postgresql://${name}-ro:5432/${spec.bootstrap.initdb.database}`,
    );
    // The operator's Secret `<cluster>-app` holds `uri`, on the `<cluster>-rw` Service.
    for (const o of [...ofKind(target, 'Deployment'), ...ofKind(target, 'Job')]) {
      for (const c of podTemplate(o)!.spec.containers) {
        const env = (c as { env?: { name: string; valueFrom?: { secretKeyRef?: unknown } }[] })
          .env;
        const url = env?.find((e) => e.name === 'DATABASE_URL');
        if (!POSTGRES_USERS.includes(o.metadata.name)) {
          expect({ pod: o.metadata.name, url }).toEqual({ pod: o.metadata.name, url: undefined });
          continue;
        }
        expect({ pod: o.metadata.name, ref: url?.valueFrom?.secretKeyRef }).toEqual({
          pod: o.metadata.name,
          ref: { name: `${name}-app`, key: 'uri' },
        });
      }
    }
  });

  it('lets the instances replicate, the operator reach them, and no one else but the users of PostgreSQL', () => {
    const primary = instance('primary');
    const replica = instance('replica');
    expect(allowed(target, replica, primary, 5432)).toBe(true);
    expect(allowed(target, primary, replica, 5432)).toBe(true);
    expect(allowed(target, OPERATOR, primary, 8000)).toBe(true);
    expect(allowed(target, OTHER_NAMESPACE, primary, 5432)).toBe(false);
    expect(allowed(target, PROMETHEUS, primary, 5432)).toBe(false);
    for (const [pod, p] of pods(target))
      expect({ pod, ok: allowed(target, p, replica, 5432) }).toEqual({
        pod,
        ok: POSTGRES_USERS.includes(pod),
      });
    // Out: the object store (and the API server) over TLS, no other port to the internet.
    expect(allowed(target, primary, PUBLIC_HOSTS[0]!, 443)).toBe(true);
    expect(allowed(target, primary, PUBLIC_HOSTS[0]!, 5432)).toBe(false);
  });

  it('its vendored schemas refuse a misspelt field, a wrong type and a five-field schedule', () => {
    const errorOf = (o: K8sObject) => {
      try {
        new MODELS[`${o.apiVersion}/${o.kind}`]!(o as never).validate();
        return '';
      } catch (err) {
        return (err as Error).message;
      }
    };
    const c = structuredClone(cluster);
    expect(errorOf(c)).toBe('');
    (c.spec as Record<string, unknown>).instance = 3;
    expect(errorOf(c)).toMatch(/additional properties/);
    const typed = structuredClone(cluster);
    (typed.spec as Record<string, unknown>).instances = '3';
    expect(errorOf(typed)).toMatch(/\/spec\/instances must be integer/);
    const b = structuredClone(ofKind(target, 'ScheduledBackup')[0]!);
    (b.spec as Record<string, unknown>).schedule = '0 3 * * *';
    expect(errorOf(b)).toMatch(/\/spec\/schedule must match pattern/);
  });

  it('names only svc-secrets keys and the operator Secret in secretKeyRefs', () => {
    const template = yamlObjects(path.join(K8S, 'base', 'secret.example.yaml'));
    const keys = Object.keys(
      (template[0] as unknown as { stringData: Record<string, string> }).stringData,
    );
    for (const o of objectsOf(target)) {
      for (const c of podTemplate(o)?.spec.containers ?? []) {
        for (const e of (
          c as { env?: { valueFrom?: { secretKeyRef?: { name: string; key: string } } }[] }
        ).env ?? []) {
          const ref = e.valueFrom?.secretKeyRef;
          if (!ref) continue;
          const ok =
            (ref.name === 'svc-secrets' && keys.includes(ref.key)) ||
            (ref.name === `${name}-app` && ref.key === 'uri');
          expect({ ref, ok }).toEqual({ ref, ok: true });
        }
      }
    }
  });
});
