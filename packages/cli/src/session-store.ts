// Where `svc login` keeps sessions: $XDG_CONFIG_HOME/svc/session.json (or
// ~/.config/svc/session.json), readable by the user only (0600 in a 0700 folder). One
// session per API origin, so a session is never sent to another server than the one
// that issued it.
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export interface StoredSession {
  token: string;
  user: { id: string; email: string; username: string };
  saved_at: string;
}

interface SessionFile {
  version: 1;
  sessions: Record<string, StoredSession>;
}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || homedir(), '.config');
  return path.join(base, 'svc');
}

export function sessionFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(configDir(env), 'session.json');
}

function read(file: string): SessionFile {
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as Partial<SessionFile>;
    if (data && typeof data === 'object' && data.sessions && typeof data.sessions === 'object') {
      return { version: 1, sessions: data.sessions };
    }
  } catch {
    /* missing or unreadable: no sessions */
  }
  return { version: 1, sessions: {} };
}

function write(file: string, data: SessionFile): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // Written whole to a private temporary file, then renamed: never a half-written or
  // briefly world-readable session file.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

export function loadSession(baseUrl: string, env?: NodeJS.ProcessEnv): StoredSession | undefined {
  return read(sessionFile(env)).sessions[baseUrl];
}

export function saveSession(
  baseUrl: string,
  session: StoredSession,
  env?: NodeJS.ProcessEnv,
): string {
  const file = sessionFile(env);
  const data = read(file);
  data.sessions[baseUrl] = session;
  write(file, data);
  return file;
}

/** Forgets the session of one origin; removes the file when none is left. */
export function forgetSession(baseUrl: string, env?: NodeJS.ProcessEnv): boolean {
  const file = sessionFile(env);
  const data = read(file);
  if (!data.sessions[baseUrl]) return false;
  delete data.sessions[baseUrl];
  if (Object.keys(data.sessions).length === 0) rmSync(file, { force: true });
  else write(file, data);
  return true;
}
