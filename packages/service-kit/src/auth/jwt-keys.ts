// The ES256 key pair of sn_token sessions. Production: JWT_PRIVATE_KEY (auth only) and
// JWT_PUBLIC_KEY are required from the environment. Development: a pair is generated
// once and kept in an ignored file at the repository root, shared by every local process.
// JWT_PUBLIC_KEYS adds keys that are accepted too: the next or the previous key while the
// signing key is rotated (docs/decisions/017-signing-key-rotation.md).
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../ops/config.js';
import { keyIdOf, splitPemBundle } from './session-keys.js';

export interface JwtKeys {
  /** The current key: auth's private key must match it. */
  publicKey: string;
  privateKey?: string;
  /** Every key that verifies sessions: the current one first, then JWT_PUBLIC_KEYS. */
  verifyKeys: string[];
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
  /** JWT_PUBLIC_KEYS: further accepted public keys, PEM blocks one after the other. */
  otherPublicKeys?: string;
}): JwtKeys {
  const others = otherPublicKeys(opts.otherPublicKeys);
  if (opts.publicKey && (!opts.needPrivate || opts.privateKey)) {
    assertEs256Pair(opts.publicKey, opts.privateKey);
    return {
      publicKey: opts.publicKey,
      privateKey: opts.privateKey,
      verifyKeys: [opts.publicKey, ...others],
    };
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
  const dev = readOrCreateDevKeys(file);
  return { ...dev, verifyKeys: [dev.publicKey, ...others] };
}

/**
 * What a process logs at start (`session keys`): the kid it signs with (auth) and the kids it
 * accepts, so an operator can see that every pod has the new key before auth switches to it.
 */
export function jwtKeyIds(keys: JwtKeys): { signingKid?: string; acceptedKids: string[] } {
  const accepted = [...new Set(keys.verifyKeys.map(keyIdOf))];
  if (!keys.privateKey) return { acceptedKids: accepted };
  return { signingKid: keyIdOf(keys.privateKey), acceptedKids: accepted };
}

/** The keys of JWT_PUBLIC_KEYS, each checked to be a P-256 public key. */
function otherPublicKeys(bundle: string | undefined): string[] {
  if (!bundle?.trim()) return [];
  const pems = splitPemBundle(bundle);
  const problems: string[] = [];
  if (pems.length === 0) problems.push('JWT_PUBLIC_KEYS holds no PEM block (-----BEGIN PUBLIC KEY-----)');
  pems.forEach((pem, i) => {
    try {
      if (!/-----BEGIN PUBLIC KEY-----/.test(pem)) throw new Error('not a public key');
      keyIdOf(pem);
    } catch (err) {
      problems.push(`JWT_PUBLIC_KEYS key ${i + 1} is invalid: ${(err as Error).message}`);
    }
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return pems;
}

type DevKeys = Omit<JwtKeys, 'verifyKeys'>;

function readOrCreateDevKeys(file: string): DevKeys {
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as DevKeys;
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
    return JSON.parse(readFileSync(file, 'utf8')) as DevKeys;
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
