// Gateway settings, read once from the environment and validated (zod).
// Upstream URLs: one *_URL setting per service with a loopback default.
import proxyaddr from 'proxy-addr';
import { z } from 'zod';
import { SERVICES } from '@svc/service-kit';
import { MAX_JSON_BODY_BYTES } from '@svc/types';
import { parseCorsOrigins } from './edge/cors.js';
import type { TrustProxy } from './edge/client-ip.js';

export type { TrustProxy };

const upstream = <N extends keyof typeof SERVICES>(name: N) =>
  ({ env: SERVICES[name].urlEnv, port: SERVICES[name].port }) as const;

/** The services the gateway forwards to (names, URL settings and ports: the kit's catalog). */
export const UPSTREAMS = {
  auth: upstream('auth'),
  'app-store': upstream('app-store'),
  sites: upstream('sites'),
  chat: upstream('chat'),
  translate: upstream('translate'),
  realtime: upstream('realtime'),
  // The MCP server (/mcp): agents' tool calls.
  mcp: upstream('mcp'),
  // Every page path (proxy/routing-table.ts): the server-rendered web client.
  web: upstream('web'),
} as const;

export type UpstreamName = keyof typeof UPSTREAMS;
export const UPSTREAM_NAMES = Object.keys(UPSTREAMS) as UpstreamName[];

/** Express's `trust proxy` value: true/false, a hop count, or addresses/subnets/names. */

export interface GatewayConfig {
  port: number;
  /** The private ops listener (/metrics, detailed /readyz): OPS_PORT, default port + 1000. */
  opsPort: number;
  trustProxy: TrustProxy;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Base URL (origin) of each upstream service. */
  upstreams: Record<UpstreamName, string>;
  /** Time an upstream has to start answering (and between body chunks): 504 beyond. */
  upstreamTimeoutMs: number;
  /** Per-upstream timeout of the /readyz fan-out. */
  readyTimeoutMs: number;
  /** Bound on the graceful drain at shutdown. */
  shutdownTimeoutMs: number;
  /** Time a client has to send a request's headers (from its first byte, or from connecting): 408 beyond. */
  headersTimeoutMs: number;
  /** Time a client has to send a request's body once its headers are in: 408 beyond. */
  bodyTimeoutMs: number;
  /**
   * Largest request body the gateway accepts; every body is read whole before the upstream
   * is called, and a larger one is answered 413 without calling it.
   */
  maxBodyBytes: number;
  /** Open client connections per client address (socket peer); 0 = no cap. */
  maxConnectionsPerIp: number;
  /**
   * Public origin of the platform (`https://svc.example`), written into the discovery
   * documents. A setting, never the request's Host: the documents are built once and cached,
   * and a Host header is the caller's to choose.
   */
  publicBaseUrl: string;
  /**
   * Origins of other frontends whose browsers may call `/api/*` with credentials (CORS),
   * exact `scheme://host[:port]` serializations; empty = no CORS headers at all.
   */
  corsOrigins: readonly string[];
}

/**
 * Parses TRUST_PROXY the way Express reads its `trust proxy` setting:
 * 'true' / 'false', a number of hops, or a comma list of addresses, CIDR subnets or the
 * names proxy-addr knows (loopback, linklocal, uniquelocal). Invalid entries throw.
 */
export function parseTrustProxy(raw: string | undefined): TrustProxy {
  const value = (raw ?? '').trim();
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  const list = value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  proxyaddr.compile(list); // throws TypeError on an invalid address or subnet
  return list;
}

const upstreamUrl = z
  .url({ protocol: /^https?$/ })
  .transform((u) => new URL(u).origin);

const ms = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** The settings as the environment spells them (scripts/env-example.mjs reads their defaults). */
export const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  OPS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((v, ctx) => {
      try {
        return parseTrustProxy(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: `invalid TRUST_PROXY: ${(err as Error).message}` });
        return z.NEVER;
      }
    }),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  UPSTREAM_TIMEOUT_MS: ms(30_000),
  READY_TIMEOUT_MS: ms(2_000),
  SHUTDOWN_TIMEOUT_MS: ms(10_000),
  GATEWAY_HEADERS_TIMEOUT_MS: ms(10_000),
  GATEWAY_BODY_TIMEOUT_MS: ms(10_000),
  // The services' JSON limit (docs/decisions/001-errors-limits-and-headers.md, MAX_JSON_BODY_BYTES): no route takes more.
  GATEWAY_MAX_BODY_BYTES: z.coerce.number().int().positive().default(MAX_JSON_BODY_BYTES),
  GATEWAY_MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(0).default(256),
  PUBLIC_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .refine((u) => !new URL(u).search && !new URL(u).hash, 'must have no query or fragment')
    .optional(),
  CORS_ORIGINS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      try {
        return parseCorsOrigins(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: `invalid CORS_ORIGINS: ${(err as Error).message}` });
        return z.NEVER;
      }
    }),
  ...Object.fromEntries(
    UPSTREAM_NAMES.map((name) => [
      UPSTREAMS[name].env,
      upstreamUrl.default(`http://127.0.0.1:${UPSTREAMS[name].port}`),
    ]),
  ),
});

/** Reads and validates the gateway settings; throws an Error listing every bad setting. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  // Empty strings count as unset (a blank line in an .env file).
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid gateway configuration: ${issues}`);
  }
  const data = parsed.data as Record<string, unknown> & z.infer<typeof EnvSchema>;
  const upstreams = Object.fromEntries(
    UPSTREAM_NAMES.map((name) => [name, data[UPSTREAMS[name].env] as string]),
  ) as Record<UpstreamName, string>;
  // Production refuses development fallbacks (docs/decisions/013-operations-port.md): the discovery
  // documents would name http://localhost.
  if (data.NODE_ENV === 'production' && data.PUBLIC_BASE_URL === undefined)
    throw new Error('Invalid gateway configuration: PUBLIC_BASE_URL: required when NODE_ENV=production (the development fallback is http://localhost)');
  const opsPort = data.OPS_PORT ?? (data.PORT === 0 ? 0 : data.PORT + 1000);
  if (opsPort > 65535) throw new Error('Invalid gateway configuration: OPS_PORT: PORT + 1000 is past 65535; set OPS_PORT');
  if (opsPort !== 0 && opsPort === data.PORT) throw new Error('Invalid gateway configuration: OPS_PORT: must differ from PORT');
  return {
    port: data.PORT,
    opsPort,
    trustProxy: data.TRUST_PROXY,
    logLevel: data.LOG_LEVEL,
    upstreams,
    upstreamTimeoutMs: data.UPSTREAM_TIMEOUT_MS,
    readyTimeoutMs: data.READY_TIMEOUT_MS,
    shutdownTimeoutMs: data.SHUTDOWN_TIMEOUT_MS,
    headersTimeoutMs: data.GATEWAY_HEADERS_TIMEOUT_MS,
    bodyTimeoutMs: data.GATEWAY_BODY_TIMEOUT_MS,
    maxBodyBytes: data.GATEWAY_MAX_BODY_BYTES,
    maxConnectionsPerIp: data.GATEWAY_MAX_CONNECTIONS_PER_IP,
    // Unset: the address a developer reaches on this machine.
    publicBaseUrl: (data.PUBLIC_BASE_URL ?? `http://localhost:${data.PORT}`).replace(/\/+$/, ''),
    corsOrigins: data.CORS_ORIGINS,
  };
}
