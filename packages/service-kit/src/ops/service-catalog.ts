// The processes of the system: their names, default ports and the environment names
// through which other processes (the gateway, the start script, realtime) find them.
// Ops override any URL through its *_URL setting; nothing else hard-codes a port.
export const SERVICES = {
  auth: { port: 4001, urlEnv: 'AUTH_URL', schema: 'auth', databaseUrlEnv: 'AUTH_DATABASE_URL' },
  'app-store': {
    port: 4002,
    urlEnv: 'APP_STORE_URL',
    schema: 'app_store',
    databaseUrlEnv: 'APP_STORE_DATABASE_URL',
  },
  sites: { port: 4003, urlEnv: 'SITES_URL', schema: 'sites', databaseUrlEnv: 'SITES_DATABASE_URL' },
  chat: { port: 4004, urlEnv: 'CHAT_URL', schema: 'chat', databaseUrlEnv: 'CHAT_DATABASE_URL' },
  translate: { port: 4005, urlEnv: 'TRANSLATE_URL', schema: null, databaseUrlEnv: null },
  realtime: { port: 4006, urlEnv: 'REALTIME_URL', schema: null, databaseUrlEnv: null },
  // The web client (server-rendered pages); the gateway sends it every non-API path.
  web: { port: 4007, urlEnv: 'WEB_URL', schema: null, databaseUrlEnv: null },
  // The MCP server at /mcp: agents' tool calls, carried out through the services' REST API.
  mcp: { port: 4008, urlEnv: 'MCP_URL', schema: null, databaseUrlEnv: null },
  // The sites worker serves only /healthz and /readyz here (/metrics: its ops port, 5013).
  'sites-worker': {
    port: 4013,
    urlEnv: 'SITES_WORKER_URL',
    schema: 'sites',
    databaseUrlEnv: 'SITES_DATABASE_URL',
  },
} as const;

export type ServiceName = keyof typeof SERVICES;

export const GATEWAY_PORT = 8080;

/** Base URL of a service, from its *_URL setting or the loopback default. */
export function serviceUrl(name: ServiceName, env: NodeJS.ProcessEnv = process.env): string {
  const entry = SERVICES[name];
  return env[entry.urlEnv] ?? `http://127.0.0.1:${entry.port}`;
}
