// What every command shares: the streams, the environment, the global options (--json,
// --base-url), a client with the right credentials, and the two ways of printing.
import { SvcClient, normaliseBaseUrl } from '@svc/client';
import { UsageError } from './exit-codes.js';
import { loadSession, type StoredSession } from './session-store.js';
import { VERSION } from './version.js';

export const DEFAULT_BASE_URL = 'http://localhost:8080';

export interface Io {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
}

export interface GlobalOptions {
  json?: boolean;
  baseUrl?: string;
}

export class Context {
  constructor(
    readonly io: Io,
    readonly env: NodeJS.ProcessEnv,
    private readonly globals: () => GlobalOptions,
  ) {}

  get json(): boolean {
    return this.globals().json === true;
  }

  /** --base-url, else SVC_BASE_URL, else the local system's gateway. */
  get baseUrl(): string {
    const raw = this.globals().baseUrl ?? this.env.SVC_BASE_URL ?? DEFAULT_BASE_URL;
    try {
      return normaliseBaseUrl(raw);
    } catch (err) {
      throw new UsageError(
        `invalid base URL (--base-url / SVC_BASE_URL): ${(err as Error).message}`,
      );
    }
  }

  get apiKey(): string | undefined {
    return this.env.SVC_API_KEY?.trim() || undefined;
  }

  /** The session `svc login` stored for this base URL, if any. */
  session(): StoredSession | undefined {
    return loadSession(this.baseUrl, this.env);
  }

  /** A client with SVC_API_KEY and the stored session (each sent where the API accepts it). */
  client(): SvcClient {
    const baseUrl = this.baseUrl;
    const sessionToken = this.session()?.token;
    if ((this.apiKey || sessionToken) && !isSafeOrigin(baseUrl)) {
      this.note(`warning: credentials go over plain HTTP to ${baseUrl}; use https://`);
    }
    return new SvcClient({
      baseUrl,
      apiKey: this.apiKey,
      sessionToken,
      headers: { 'user-agent': `svc-cli/${VERSION} node/${process.versions.node}` },
    });
  }

  /** JSON for scripts (--json), text for people. */
  print(value: unknown, human: () => string): void {
    if (this.json) this.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    else {
      const text = human();
      if (text) this.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    }
  }

  /** Progress and warnings: stderr, so stdout stays clean for pipes and --json. */
  note(text: string): void {
    this.io.stderr.write(`${text}\n`);
  }
}

/** HTTPS, or plain HTTP to this machine (a local system or a test). */
function isSafeOrigin(baseUrl: string): boolean {
  const url = new URL(baseUrl);
  if (url.protocol === 'https:') return true;
  return (
    ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) ||
    url.hostname.endsWith('.localhost')
  );
}
