// The keys of sn_token sessions, by key id (docs/decisions/017-signing-key-rotation.md).
// A token's `kid` is the RFC 7638 JWK thumbprint of the public key that verifies it: derived
// from the key itself, so it cannot be configured wrong and is the same in every process.
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';

/** The public keys a process accepts: one PEM, a list of PEMs, or a set built by `sessionKeySet`. */
export type SessionVerifyKeys = string | readonly string[] | SessionKeySet;

export interface SessionKeySet {
  /** Every accepted key by its `kid`, the current key first. */
  readonly byKid: ReadonlyMap<string, KeyObject>;
}

export interface SessionSigningKey {
  readonly key: KeyObject;
  readonly kid: string;
}

/** RFC 7638: SHA-256 over the required members of the JWK in lexicographic order, base64url. */
export function jwkThumbprint(key: KeyObject): string {
  const jwk = key.export({ format: 'jwk' });
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256') throw new Error('not a P-256 key');
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical).digest('base64url');
}

/** The `kid` of a PEM key (public, or private: its public half). */
export const keyIdOf = (pem: string): string => jwkThumbprint(createPublicKey(pem));

/**
 * The PEM blocks of a bundle (JWT_PUBLIC_KEYS: several keys pasted one after the other, as in
 * a CA bundle); anything between blocks is ignored. Empty for an empty or unset value.
 */
export function splitPemBundle(bundle: string | undefined): string[] {
  if (!bundle) return [];
  return bundle.match(/-----BEGIN ([A-Z ]+)-----[\s\S]*?-----END \1-----/g) ?? [];
}

const MEMO_LIMIT = 16;

function memo<V>(cache: Map<string, V>, key: string, make: () => V): V {
  let value = cache.get(key);
  if (value === undefined) {
    // Processes use one or two key sets; the bound only keeps tests with many keys small.
    if (cache.size >= MEMO_LIMIT) cache.clear();
    value = make();
    cache.set(key, value);
  }
  return value;
}

const keySets = new Map<string, SessionKeySet>();
const signingKeys = new Map<string, SessionSigningKey>();

/** Parses the keys once; the same PEMs give the same set. A duplicate key counts once. */
export function sessionKeySet(keys: SessionVerifyKeys): SessionKeySet {
  if (typeof keys !== 'string' && !Array.isArray(keys)) return keys as SessionKeySet;
  const pems: readonly string[] = typeof keys === 'string' ? [keys] : keys;
  return memo(keySets, pems.join('\n'), () => {
    const byKid = new Map<string, KeyObject>();
    for (const pem of pems) {
      const key = createPublicKey(pem);
      const kid = jwkThumbprint(key);
      if (!byKid.has(kid)) byKid.set(kid, key);
    }
    return { byKid };
  });
}

/** The private key and the `kid` auth puts in the header of every token it signs. */
export function sessionSigningKey(privateKeyPem: string): SessionSigningKey {
  return memo(signingKeys, privateKeyPem, () => {
    const key = createPrivateKey(privateKeyPem);
    return { key, kid: jwkThumbprint(createPublicKey(key)) };
  });
}
