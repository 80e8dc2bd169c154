// The private operations surface through real processes (docs/decisions/013-operations-port.md): the
// gateway's public port answers 404 to /metrics and /readyz, each process's ops port
// serves them; a forged X-Forwarded-For from a peer the service does not trust counts as
// that peer, so rotating it does not step around a per-IP limit.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ServiceProcess } from '@svc/service-kit/testing';
import { createTestSystem } from './system-processes.js';

const system = createTestSystem();
let translate: ServiceProcess;
let gateway: ServiceProcess;
/** translate trusting only a network the test's peer (127.0.0.1) is not in. */
let strictTranslate: ServiceProcess;

/** translate's per-IP limit, lowered so the test reaches it quickly. */
const LIMIT = 3;

beforeAll(async () => {
  translate = await system.service('translate', { TRANSLATE_RATE_LIMIT_PER_MINUTE: String(LIMIT) });
  strictTranslate = await system.service('translate', {
    TRANSLATE_RATE_LIMIT_PER_MINUTE: String(LIMIT),
    TRUSTED_PROXIES: '10.250.0.0/16',
    // Its own limit counters: the same Redis prefix would mix both processes' counts.
    REDIS_PREFIX: `${system.redisPrefix}strict:`,
  });
  // Only translate is up: the gateway's readiness must name the others as unavailable.
  gateway = await system.start('gateway/dist/main.js', {
    TRANSLATE_URL: translate.url,
    AUTH_URL: 'http://127.0.0.1:1',
    PUBLIC_BASE_URL: 'https://svc.ops.test',
    READY_TIMEOUT_MS: '500',
  });
}, 60_000);

afterAll(() => system.stop(), 30_000);

const translateOnce = (base: string, forged: string) =>
  fetch(`${base}/api/translate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': forged },
    body: '{}',
  });

describe('through the gateway’s public entry', () => {
  it('/metrics and /readyz are 404 JSON, in every spelling, and reveal nothing', async () => {
    for (const path of ['/metrics', '/readyz', '/METRICS', '/readyz/', '/metrics?format=text']) {
      const res = await fetch(`${gateway.url}${path}`);
      const text = await res.text();
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(JSON.parse(text)).toEqual({ error: 'Not found' });
      expect(text).not.toMatch(/gateway_requests_total|translate|unavailable/);
    }
  });

  it('/healthz stays: liveness without detail', async () => {
    const res = await fetch(`${gateway.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });
});

describe('the ops ports', () => {
  it('the gateway’s: the detailed readiness over the upstreams, and its metrics', async () => {
    const ready = await fetch(`${gateway.opsUrl}/readyz`);
    expect(ready.status).toBe(503);
    const body = (await ready.json()) as { status: string; services: Record<string, string> };
    expect(body.status).toBe('unavailable');
    expect(body.services.translate).toBe('ready');
    expect(body.services.auth).toBe('unavailable');
    const metrics = await (await fetch(`${gateway.opsUrl}/metrics`)).text();
    expect(metrics).toMatch(/gateway_requests_total\{/);
    expect((await fetch(`${gateway.opsUrl}/api/translate`)).status).toBe(404);
  });

  it('a service’s: checks by name and metrics there, only the verdict on its public port', async () => {
    const ops = await fetch(`${translate.opsUrl}/readyz`);
    expect(ops.status).toBe(200);
    // translate has no hard dependency (Redis down degrades it): an empty list of checks.
    expect(await ops.json()).toEqual({ status: 'ready', checks: {} });
    expect(await (await fetch(`${translate.opsUrl}/metrics`)).text()).toMatch(
      /http_requests_total/,
    );
    expect(await (await fetch(`${translate.url}/readyz`)).json()).toEqual({ status: 'ready' });
    expect((await fetch(`${translate.url}/metrics`)).status).toBe(404);
  });
});

describe('trusted proxies', () => {
  it('a forged X-Forwarded-For sent to the gateway (which trusts nobody) does not split the limit', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= LIMIT + 1; i++)
      statuses.push((await translateOnce(gateway.url, `198.51.100.${i}`)).status);
    expect(statuses).toEqual([...Array<number>(LIMIT).fill(400), 429]);
  });

  it('a forged X-Forwarded-For from a peer outside TRUSTED_PROXIES is ignored by the service', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= LIMIT + 1; i++)
      statuses.push((await translateOnce(strictTranslate.url, `203.0.113.${i}`)).status);
    expect(statuses).toEqual([...Array<number>(LIMIT).fill(400), 429]);
  });

  it('the gateway’s own address (loopback here) is trusted: each forwarded client has its own limit', async () => {
    // Direct to translate from loopback = as the gateway: two clients, two budgets.
    const first = await translateOnce(translate.url, '192.0.2.1');
    const second = await translateOnce(translate.url, '192.0.2.2');
    expect([first.status, second.status]).toEqual([400, 400]);
  });
});
