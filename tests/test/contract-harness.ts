// Contract harness: checks real HTTP answers against the served /openapi.json.
//
//   const contract = await loadContract(gatewayUrl);        // fetches /openapi.json
//   const { status, body } = await contract.request('/api/auth/me', { cookie });
//
// Every answer that goes through `request` (or `check`) is matched to its operation by
// method + path template, then its status must be documented, its body must validate
// (JSON Schema 2020-12, ajv) against the documented schema of that status and media type,
// and the headers the document marks required must be there with valid values. Any
// mismatch throws a ContractViolation listing every problem. `covered()` tells which
// operation/status pairs a test run exercised.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type Json = Record<string, unknown>;
interface MediaObject {
  schema?: Json;
}
interface HeaderObject {
  required?: boolean;
  schema?: Json;
  $ref?: string;
}
interface ResponseObject {
  content?: Record<string, MediaObject>;
  headers?: Record<string, HeaderObject>;
}
interface OperationObject {
  operationId?: string;
  responses: Record<string, ResponseObject>;
}
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, Json>; headers?: Record<string, HeaderObject> };
}

/** One answer as seen by a client. */
export interface ObservedResponse {
  method: string;
  /** Path with optional query string (`/api/sites?page=2`) or an absolute URL. */
  url: string;
  status: number;
  headers: Headers;
  /** Raw body text ('' when none). */
  text: string;
}

export class ContractViolation extends Error {
  constructor(
    readonly problems: string[],
    readonly response: ObservedResponse,
  ) {
    super(
      `${response.method} ${response.url} → ${response.status} breaks the contract:\n` +
        problems.map((p) => `  - ${p}`).join('\n') +
        `\n  body: ${response.text.slice(0, 500)}`,
    );
    this.name = 'ContractViolation';
  }
}

export interface ContractRequestInit extends Omit<RequestInit, 'body'> {
  /** Sent as JSON (content-type set) unless a string. */
  body?: unknown;
  cookie?: string;
}

export interface ContractAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON, or undefined for non-JSON answers. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface Contract {
  /** Problems of one answer; empty when it conforms. */
  check(response: ObservedResponse): string[];
  /** Throws a ContractViolation when the answer does not conform. */
  assert(response: ObservedResponse): void;
  /** fetch(baseUrl + path), then assert; answers are never redirected. */
  request(path: string, init?: ContractRequestInit): Promise<ContractAnswer>;
  /** `operationId status` of every conforming answer seen so far. */
  covered(): Set<string>;
  /** operationIds of the document that no conforming answer exercised yet. */
  uncovered(): string[];
  /** The operation a method and path resolve to (undefined when undocumented). */
  operationFor(
    method: string,
    url: string,
  ): { template: string; operation: OperationObject } | undefined;
}

const SCHEMA_ROOT = 'urn:svc:openapi';
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** Path templates as regular expressions; literal paths win over templated ones. */
function compileTemplates(doc: OpenApiDocument) {
  return Object.keys(doc.paths)
    .map((template) => {
      const params = (template.match(/\{[^}]+\}/g) ?? []).length;
      const source = template
        .split(/\{[^}]+\}/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]+');
      return { template, params, regex: new RegExp(`^${source}$`) };
    })
    .sort((a, b) => a.params - b.params);
}

const mediaTypeOf = (contentType: string | null) =>
  (contentType ?? '').split(';')[0]!.trim().toLowerCase();

/** A header value as its schema expects it (headers are text; integers are written as digits). */
function headerValue(raw: string, schema: Json | undefined): unknown {
  if ((schema?.type === 'integer' || schema?.type === 'number') && /^-?\d+(\.\d+)?$/.test(raw))
    return Number(raw);
  return raw;
}

export function createContract(doc: OpenApiDocument, baseUrl = ''): Contract {
  if (!doc.openapi?.startsWith('3.1')) throw new Error(`expected OpenAPI 3.1, got ${doc.openapi}`);
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  // One schema holds the components; every `#/components/schemas/X` points into it.
  const rewrite = <T>(value: T): T =>
    JSON.parse(
      JSON.stringify(value).replaceAll('"#/components/schemas/', `"${SCHEMA_ROOT}#/$defs/`),
    ) as T;
  ajv.addSchema({ $id: SCHEMA_ROOT, $defs: rewrite(doc.components?.schemas ?? {}) });
  const validators = new Map<string, ValidateFunction>();
  const validator = (key: string, schema: Json) => {
    let v = validators.get(key);
    if (!v) {
      v = ajv.compile(rewrite(schema));
      validators.set(key, v);
    }
    return v;
  };
  const templates = compileTemplates(doc);
  const covered = new Set<string>();

  const operationFor: Contract['operationFor'] = (method, url) => {
    const path = new URL(url, 'http://contract.invalid').pathname;
    const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    for (const t of templates) {
      if (!t.regex.test(path)) continue;
      const operation = doc.paths[t.template]?.[verb];
      if (operation) return { template: t.template, operation };
    }
    return undefined;
  };

  const resolveHeader = (h: HeaderObject): HeaderObject =>
    h.$ref ? (doc.components?.headers?.[h.$ref.split('/').pop()!] ?? {}) : h;

  function check(r: ObservedResponse): string[] {
    const found = operationFor(r.method, r.url);
    if (!found)
      return [`no operation documents ${r.method} ${new URL(r.url, 'http://x').pathname}`];
    const { template, operation } = found;
    const id = operation.operationId ?? `${r.method} ${template}`;
    const status = String(r.status);
    const documented =
      operation.responses[status] ??
      operation.responses[`${status[0]}XX`] ??
      operation.responses.default;
    if (!documented)
      return [
        `status ${status} is not documented for ${id} (documented: ${Object.keys(operation.responses).join(', ')})`,
      ];
    const problems: string[] = [];

    for (const [name, raw] of Object.entries(documented.headers ?? {})) {
      const header = resolveHeader(raw);
      const value = r.headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`required header ${name} is missing`);
        continue;
      }
      if (header.schema) {
        const v = validator(`header ${name} ${JSON.stringify(header.schema)}`, header.schema);
        if (!v(headerValue(value, header.schema)))
          problems.push(`header ${name}: ${JSON.stringify(value)} ${ajv.errorsText(v.errors)}`);
      }
    }

    const isHead = r.method.toUpperCase() === 'HEAD';
    const content = documented.content;
    if (!content || Object.keys(content).length === 0) {
      if (r.text.length > 0 && !isHead)
        problems.push(`no body is documented, got ${r.text.length} bytes`);
    } else if (!isHead) {
      const mediaType = mediaTypeOf(r.headers.get('content-type'));
      // Exact media type first, then a range (`image/*`, `*/*`).
      const media = content[mediaType] ?? content[`${mediaType.split('/')[0]}/*`] ?? content['*/*'];
      if (!media)
        problems.push(
          `content-type ${mediaType || '(none)'} is not documented (${Object.keys(content).join(', ')})`,
        );
      else if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
        let body: unknown;
        try {
          body = JSON.parse(r.text);
        } catch {
          problems.push('body is not valid JSON');
        }
        if (body !== undefined && media.schema) {
          const v = validator(`${id} ${status} ${mediaType}`, media.schema);
          if (!v(body))
            for (const e of v.errors ?? [])
              problems.push(`body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
        }
      }
    }
    if (problems.length === 0) covered.add(`${id} ${status}`);
    return problems;
  }

  function assert(r: ObservedResponse): void {
    const problems = check(r);
    if (problems.length > 0) throw new ContractViolation(problems, r);
  }

  async function request(path: string, init: ContractRequestInit = {}): Promise<ContractAnswer> {
    const { body, cookie, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (cookie) headers.set('cookie', cookie);
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }
    const method = rest.method ?? 'GET';
    const res = await fetch(`${baseUrl}${path}`, {
      ...rest,
      method,
      headers,
      body: payload,
      redirect: 'manual',
    });
    const text = await res.text();
    assert({ method, url: path, status: res.status, headers: res.headers, text });
    const isJson = mediaTypeOf(res.headers.get('content-type')) === 'application/json';
    return {
      status: res.status,
      headers: res.headers,
      text,
      body: isJson && text ? JSON.parse(text) : undefined,
    };
  }

  const uncovered = () => {
    const hit = new Set([...covered].map((key) => key.split(' ')[0]));
    return Object.values(doc.paths)
      .flatMap((ops) => Object.values(ops).map((o) => o.operationId ?? ''))
      .filter((id) => id && !hit.has(id));
  };

  return { check, assert, request, covered: () => new Set(covered), uncovered, operationFor };
}

/** The contract a running gateway serves (its own /openapi.json), bound to that gateway. */
export async function loadContract(baseUrl: string): Promise<Contract> {
  const res = await fetch(`${baseUrl}/openapi.json`);
  if (res.status !== 200) throw new Error(`GET ${baseUrl}/openapi.json answered ${res.status}`);
  return createContract((await res.json()) as OpenApiDocument, baseUrl);
}
