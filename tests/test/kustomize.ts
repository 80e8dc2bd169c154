// The subset of kustomize that k8s/ uses, in TypeScript, so the deployment tests render
// every overlay offline (CI machines have no kustomize binary; npm has no maintained
// kustomize). Anything outside the subset throws instead of being ignored, and
// deployment.test.ts compares the result with `kubectl kustomize` wherever kubectl is
// installed, so this cannot quietly drift from the real tool.
//
// Supported: resources (files and directories holding a kustomization), components
// (directories holding a `kind: Component` with resources and patches), namespace,
// images (newName/newTag/digest), replicas, patches (inline JSON 6902 with a kind/name
// target). Order as kustomize applies them: resources, components (each adds its resources,
// then patches everything so far), patches, namespace, replicas, images.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [field: string]: unknown;
}

interface Kustomization {
  apiVersion?: string;
  kind?: string;
  resources?: string[];
  components?: string[];
  namespace?: string;
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
  replicas?: { name: string; count: number }[];
  patches?: { target?: { kind?: string; name?: string }; patch?: string; path?: string }[];
}

const SUPPORTED = new Set([
  'apiVersion',
  'kind',
  'resources',
  'components',
  'namespace',
  'images',
  'replicas',
  'patches',
]);
/** Kinds kustomize's namespace transformer leaves alone (cluster-scoped). */
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'GatewayClass',
]);
const SCALABLE = new Set(['Deployment', 'StatefulSet', 'ReplicaSet']);

export function readKustomization(dir: string): Kustomization {
  const k = parse(readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')) as Kustomization;
  for (const key of Object.keys(k)) {
    if (!SUPPORTED.has(key))
      throw new Error(
        `${dir}: kustomization field ${key} is not supported by tests/test/kustomize.ts`,
      );
  }
  return k;
}

export function yamlObjects(file: string): K8sObject[] {
  const out: K8sObject[] = [];
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'), { merge: true })) {
    if (doc.errors.length > 0)
      throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value = doc.toJS() as K8sObject | null;
    if (value !== null && value !== undefined) out.push(value);
  }
  return out;
}

/** What `kubectl kustomize <dir>` prints, as objects. */
export function renderKustomization(dir: string): K8sObject[] {
  const k = readKustomization(dir);
  if (k.kind === 'Component')
    throw new Error(`${dir}: a Component is rendered only through a kustomization's components`);
  const objects = structuredClone(resourcesOf(dir, k));
  for (const entry of k.components ?? []) {
    const componentDir = path.resolve(dir, entry);
    const c = readKustomization(componentDir);
    if (c.kind !== 'Component')
      throw new Error(`${componentDir}: components must name a kind: Component`);
    for (const key of ['namespace', 'images', 'replicas', 'components'] as const)
      if (c[key] !== undefined)
        throw new Error(`${componentDir}: component field ${key} is not supported by tests/test/kustomize.ts`);
    objects.push(...structuredClone(resourcesOf(componentDir, c)));
    for (const p of c.patches ?? []) applyPatch(objects, p, componentDir);
  }
  for (const p of k.patches ?? []) applyPatch(objects, p, dir);
  if (k.namespace) {
    for (const o of objects) if (!CLUSTER_SCOPED.has(o.kind)) o.metadata.namespace = k.namespace;
  }
  for (const r of k.replicas ?? []) {
    const hits = objects.filter((o) => SCALABLE.has(o.kind) && o.metadata.name === r.name);
    if (hits.length === 0)
      throw new Error(`${dir}: replicas names ${r.name}, which is not rendered`);
    for (const o of hits) (o.spec as Record<string, unknown>).replicas = r.count;
  }
  for (const image of k.images ?? []) for (const o of objects) setImage(o, image);
  const ids = objects.map(idOf);
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup) throw new Error(`${dir}: ${dup} is rendered twice`);
  return objects;
}

/** The objects of a kustomization's `resources`: files, and directories rendered in turn. */
function resourcesOf(dir: string, k: Kustomization): K8sObject[] {
  const objects: K8sObject[] = [];
  for (const entry of k.resources ?? []) {
    const target = path.resolve(dir, entry);
    objects.push(
      ...(statSync(target).isDirectory() ? renderKustomization(target) : yamlObjects(target)),
    );
  }
  return objects;
}

export const idOf = (o: K8sObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

function applyPatch(
  objects: K8sObject[],
  p: NonNullable<Kustomization['patches']>[number],
  dir: string,
) {
  const text = p.patch ?? (p.path ? readFileSync(path.resolve(dir, p.path), 'utf8') : undefined);
  if (text === undefined) throw new Error(`${dir}: a patch without patch or path`);
  const ops = parse(text) as unknown;
  if (!Array.isArray(ops))
    throw new Error(`${dir}: only JSON 6902 patches (a list of operations) are supported`);
  const { kind, name } = p.target ?? {};
  if (!kind || !name) throw new Error(`${dir}: a patch needs target.kind and target.name`);
  const hits = objects.filter((o) => o.kind === kind && o.metadata.name === name);
  if (hits.length === 0) throw new Error(`${dir}: patch target ${kind}/${name} is not rendered`);
  for (const o of hits) for (const op of ops as JsonPatchOp[]) applyOp(o, op);
}

interface JsonPatchOp {
  op: string;
  path: string;
  value?: unknown;
}

function applyOp(doc: K8sObject, op: JsonPatchOp) {
  for (const key of Object.keys(op)) {
    if (!['op', 'path', 'value'].includes(key))
      throw new Error(`patch ${op.path}: unknown key ${key}`);
  }
  if ((op.op === 'add' || op.op === 'replace') && !('value' in op))
    throw new Error(`patch ${op.op} ${op.path} has no value`);
  const keys = op.path
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = keys.pop();
  if (last === undefined) throw new Error(`patch path ${op.path} names the whole document`);
  let parent: unknown = doc;
  for (const key of keys) {
    parent = (parent as Record<string, unknown>)?.[key];
    if (parent === undefined || parent === null)
      throw new Error(`patch path ${op.path}: ${key} does not exist`);
  }
  const container = parent as Record<string, unknown> | unknown[];
  const value = structuredClone(op.value);
  if (Array.isArray(container)) {
    const index = last === '-' ? container.length : Number(last);
    if (!Number.isInteger(index) || index < 0 || index > container.length)
      throw new Error(`patch path ${op.path}: ${last} is not an index`);
    const exists = index < container.length;
    if (op.op === 'add') container.splice(index, 0, value);
    else if (op.op === 'replace' && exists) container[index] = value;
    else if (op.op === 'remove' && exists) container.splice(index, 1);
    else throw new Error(`patch ${op.op} ${op.path}: not supported or nothing there`);
    return;
  }
  const exists = last in container;
  switch (op.op) {
    case 'add':
      container[last] = value;
      return;
    case 'replace':
      if (!exists) throw new Error(`patch replace ${op.path}: nothing to replace`);
      container[last] = value;
      return;
    case 'remove':
      if (!exists) throw new Error(`patch remove ${op.path}: nothing to remove`);
      delete container[last];
      return;
    default:
      throw new Error(`patch op ${op.op} is not supported by tests/test/kustomize.ts`);
  }
}

function setImage(o: K8sObject, image: NonNullable<Kustomization['images']>[number]) {
  const podSpec = (o.spec as { template?: { spec?: Record<string, unknown> } } | undefined)
    ?.template?.spec;
  for (const list of [podSpec?.containers, podSpec?.initContainers]) {
    for (const c of (list as { image?: string }[] | undefined) ?? []) {
      if (!c.image) continue;
      const name = c.image.replace(/@.*$/, '').replace(/:[^/:]*$/, '');
      if (name !== image.name) continue;
      const newName = image.newName ?? name;
      if (image.digest) c.image = `${newName}@${image.digest}`;
      else if (image.newTag) c.image = `${newName}:${image.newTag}`;
      else c.image = c.image.replace(name, newName);
    }
  }
}
