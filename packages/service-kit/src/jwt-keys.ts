// The ES256 key pair of sn_token sessions. Production: JWT_PRIVATE_KEY (auth only) and
// JWT_PUBLIC_KEY are required from the environment. Development: a pair is generated
// once and kept in an ignored file at the repository root, shared by every local process.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './config.js';

export interface JwtKeys {
  publicKey: string;
  privateKey?: string;
}

const DEV_KEYS_RELATIVE = '.dev-keys/jwt-es256.json';

/** The repository root (where pnpm-workspace.yaml is), searched upwards from `from`. */
export function findRepoRoot(from = process.cwd()): string | undefined {
  let dir = path.resolve(from);
  for (;;) {
    if (existsSync(path.join(dir, 'pnpm-workspace.yaml'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export function loadJwtKeys(opts: {
  privateKey?: string;
  publicKey?: string;
  production: boolean;
  needPrivate: boolean;
  devKeysFile?: string;
}): JwtKeys {
  if (opts.publicKey && (!opts.needPrivate || opts.privateKey)) {
    assertEs256Pair(opts.publicKey, opts.privateKey);
    return { publicKey: opts.publicKey, privateKey: opts.privateKey };
  }
  if (opts.production) {
    const missing = [
      !opts.publicKey && 'JWT_PUBLIC_KEY',
      opts.needPrivate && !opts.privateKey && 'JWT_PRIVATE_KEY',
    ];
    throw new ConfigError(
      missing
        .filter(Boolean)
        .map((n) => `${n} is missing: an ES256 PEM key is required in production`),
    );
  }
  const file = opts.devKeysFile ?? path.join(findRepoRoot() ?? process.cwd(), DEV_KEYS_RELATIVE);
  return readOrCreateDevKeys(file);
}

function readOrCreateDevKeys(file: string): JwtKeys {
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as JwtKeys;
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keys = {
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    // 'wx': if several processes start at once, the first one's pair wins.
    writeFileSync(file, JSON.stringify(keys, null, 2), { mode: 0o600, flag: 'wx' });
    return keys;
  } catch {
    return JSON.parse(readFileSync(file, 'utf8')) as JwtKeys;
  }
}

function assertEs256Pair(publicKey: string, privateKey?: string): void {
  try {
    const pub = createPublicKey(publicKey);
    if (pub.asymmetricKeyType !== 'ec' || pub.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
      throw new Error('not a P-256 key');
    }
    if (privateKey) {
      const derived = createPublicKey(privateKey)
        .export({ type: 'spki', format: 'pem' })
        .toString();
      if (derived !== pub.export({ type: 'spki', format: 'pem' }).toString()) {
        throw new Error('JWT_PRIVATE_KEY does not match JWT_PUBLIC_KEY');
      }
    }
  } catch (err) {
    throw new ConfigError([
      `JWT_PUBLIC_KEY/JWT_PRIVATE_KEY are invalid: ${(err as Error).message}`,
    ]);
  }
}
