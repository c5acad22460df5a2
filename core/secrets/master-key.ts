import { chmodSync, existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';

export const MASTER_KEY_BYTES = 32;

export class MasterKeyError extends Error {
  readonly code = 'GW_ERR_MASTER_KEY';
  constructor(message: string) {
    super(message);
    this.name = 'MasterKeyError';
  }
}

function decode(base64: string, source: string): Uint8Array {
  const key = Buffer.from(base64.trim(), 'base64');
  if (key.length !== MASTER_KEY_BYTES) {
    throw new MasterKeyError(`${source} must be ${MASTER_KEY_BYTES} bytes of base64 (got ${key.length} bytes)`);
  }
  return new Uint8Array(key);
}

/**
 * The master key that seals credentials: AMTGW_MASTER_KEY (base64) when set, else the key file,
 * created with owner-only permissions on first start.
 */
export function loadMasterKey(keyFile: string, env: NodeJS.ProcessEnv = process.env): { key: Uint8Array; source: 'env' | 'file' | 'created' } {
  if (env.AMTGW_MASTER_KEY) return { key: decode(env.AMTGW_MASTER_KEY, 'AMTGW_MASTER_KEY'), source: 'env' };
  if (existsSync(keyFile)) return { key: decode(readFileSync(keyFile, 'utf8'), `master key file ${keyFile}`), source: 'file' };
  mkdirSync(dirname(keyFile), { recursive: true, mode: 0o700 });
  const key = randomBytes(MASTER_KEY_BYTES);
  writeFileSync(keyFile, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(keyFile, 0o600);
  return { key: new Uint8Array(key), source: 'created' };
}
