import { describe, expect, it } from '@jest/globals';
import http from 'node:http';
import { startService } from '../src/lifecycle.js';
import { createLogger } from '../src/logger.js';

const logger = createLogger('test', 'silent');

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ port, path, host: '127.0.0.1', agent: false }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('startService graceful stop', () => {
  it('finishes in-flight requests, refuses new ones, then closes resources', async () => {
    const closed: string[] = [];
    const service = await startService({
      name: 'test',
      port: 0,
      host: '127.0.0.1',
      logger,
      handleSignals: false,
      handler: (req, res) => {
        setTimeout(() => res.end(`done ${req.url}`), req.url === '/slow' ? 300 : 0);
      },
      resources: [async () => void closed.push('db'), () => void closed.push('redis')],
    });
    const inFlight = get(service.port, '/slow');
    await new Promise((r) => setTimeout(r, 50));
    const stopped = service.stop();
    await expect(get(service.port, '/new')).rejects.toThrow(/ECONNREFUSED|ECONNRESET/);
    expect(await inFlight).toEqual({ status: 200, body: 'done /slow' });
    await stopped;
    expect(closed).toEqual(['db', 'redis']);
  });

  it('cuts requests that outlive the shutdown timeout', async () => {
    const service = await startService({
      name: 'test',
      port: 0,
      host: '127.0.0.1',
      logger,
      handleSignals: false,
      shutdownTimeoutMs: 100,
      handler: () => undefined, // never answers
    });
    const hanging = get(service.port, '/hang').catch((err: Error) => err);
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await service.stop();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(String(await hanging)).toMatch(/socket hang up|ECONNRESET/);
  });

  it('runs the drain step returned by onServer after the listener closes, before resources', async () => {
    const order: string[] = [];
    const service = await startService({
      name: 'test',
      port: 0,
      host: '127.0.0.1',
      logger,
      handleSignals: false,
      handler: (_req, res) => res.end('ok'),
      onServer: (server) => async () => {
        order.push(server.listening ? 'drain while listening' : 'drain after close');
      },
      resources: [() => void order.push('resources')],
    });
    await service.stop();
    expect(order).toEqual(['drain after close', 'resources']);
  });
});
