// mcp settings: defaults, the allowed origins, the services it calls.
import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '@svc/service-kit';
import { configSchema, upstreamsOf } from '../src/config.js';

describe('mcp settings', () => {
  it('default to the loopback services and no browser origin', () => {
    const config = loadConfig(configSchema, {});
    expect(config.PORT).toBe(4008);
    expect(config.MCP_ALLOWED_ORIGINS).toEqual([]);
    expect(config.MCP_UPSTREAM_TIMEOUT_MS).toBe(25_000);
    expect(upstreamsOf(config)).toEqual({
      'app-store': 'http://127.0.0.1:4002',
      sites: 'http://127.0.0.1:4003',
      chat: 'http://127.0.0.1:4004',
      translate: 'http://127.0.0.1:4005',
    });
  });

  it('read MCP_ALLOWED_ORIGINS and refuse a bad entry by name', () => {
    expect(loadConfig(configSchema, { MCP_ALLOWED_ORIGINS: 'https://a.example, https://b.example' }).MCP_ALLOWED_ORIGINS).toEqual([
      'https://a.example',
      'https://b.example',
    ]);
    expect(() => loadConfig(configSchema, { MCP_ALLOWED_ORIGINS: 'https://a.example/path' })).toThrow(/MCP_ALLOWED_ORIGINS is invalid/);
    expect(() => loadConfig(configSchema, { MCP_UPSTREAM_TIMEOUT_MS: '10' })).toThrow(/MCP_UPSTREAM_TIMEOUT_MS/);
  });
});
