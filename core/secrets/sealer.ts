import nacl from 'tweetnacl';
import { createHash } from 'node:crypto';
import { HttpError } from '../http/http-error.js';
import type { PluginSecrets } from '../plugin-api.js';

const VERSION = 'v1';

/** Names the key without revealing it: stored next to sealed values to tell a wrong key from damage. */
export function keyId(key: Uint8Array): string {
  return createHash('sha256').update('amtgw-key-id').update(key).digest('base64url').slice(0, 12);
}

/**
 * NaCl secretbox sealing: `v1.<keyId>.<nonce b64>.<box b64>`, a fresh random nonce every seal.
 * Seals under `key`; opens what `key` or one of `alsoOpens` sealed (a cluster rotating its master
 * key: every instance opens both keys while the store is re-sealed).
 */
export function createSealer(key: Uint8Array, alsoOpens: readonly Uint8Array[] = []): PluginSecrets {
  const id = keyId(key);
  const opening = new Map([[id, key], ...alsoOpens.map((k): [string, Uint8Array] => [keyId(k), k])]);
  return {
    seal(plaintext) {
      const nonce = nacl.randomBytes(nacl.secretbox.nonceLength);
      const box = nacl.secretbox(new TextEncoder().encode(plaintext), nonce, key);
      return [VERSION, id, Buffer.from(nonce).toString('base64'), Buffer.from(box).toString('base64')].join('.');
    },
    unseal(sealed) {
      const [version, sealedKeyId, nonceB64, boxB64] = sealed.split('.');
      if (version !== VERSION || !nonceB64 || !boxB64) {
        throw new HttpError(500, 'GW_ERR_UNSEAL_FAILED', 'a stored secret is damaged and cannot be unsealed');
      }
      const opener = opening.get(sealedKeyId ?? '');
      if (!opener) {
        throw new HttpError(500, 'GW_ERR_UNSEAL_FAILED', 'a stored secret was sealed under a different master key (check AMTGW_MASTER_KEY or the key file)', { expose: true });
      }
      const opened = nacl.secretbox.open(new Uint8Array(Buffer.from(boxB64, 'base64')), new Uint8Array(Buffer.from(nonceB64, 'base64')), opener);
      if (!opened) throw new HttpError(500, 'GW_ERR_UNSEAL_FAILED', 'a stored secret failed authentication: wrong master key or damaged value', { expose: true });
      return new TextDecoder().decode(opened);
    },
  };
}
