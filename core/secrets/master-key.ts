import { chmodSync, existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
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

/** A master key and where it came from. */
export interface LoadedKey {
  key: Uint8Array;
  source: 'env' | 'file' | 'created';
}

/** The master key from AMTGW_MASTER_KEY (base64) when set, else from the key file; undefined when neither exists. */
export function readMasterKey(keyFile: string, env: NodeJS.ProcessEnv = process.env): LoadedKey | undefined {
  if (env.AMTGW_MASTER_KEY) return { key: decode(env.AMTGW_MASTER_KEY, 'AMTGW_MASTER_KEY'), source: 'env' };
  if (existsSync(keyFile)) return readKeyFile(keyFile);
  return undefined;
}

/**
 * The key a cluster is rotating to (AMTGW_MASTER_KEY_NEXT, base64), or the one it rotates from: a key
 * an instance opens secrets with beside its own while the store is re-sealed. Undefined when unset.
 */
export function readOtherMasterKey(env: NodeJS.ProcessEnv = process.env): Uint8Array | undefined {
  return env.AMTGW_MASTER_KEY_NEXT ? decode(env.AMTGW_MASTER_KEY_NEXT, 'AMTGW_MASTER_KEY_NEXT') : undefined;
}

/** A key file's key (base64 of 32 bytes and a newline). */
export function readKeyFile(keyFile: string): LoadedKey {
  return { key: decode(readFileSync(keyFile, 'utf8'), `master key file ${keyFile}`), source: 'file' };
}

/** A fresh random key. */
export function generateMasterKey(): Uint8Array {
  return new Uint8Array(randomBytes(MASTER_KEY_BYTES));
}

/** Writes a key file with owner-only permissions; never replaces an existing file. */
export function writeKeyFile(keyFile: string, key: Uint8Array): void {
  mkdirSync(dirname(keyFile), { recursive: true, mode: 0o700 });
  writeFileSync(keyFile, Buffer.from(key).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(keyFile, 0o600);
}

/**
 * The master key that seals credentials: AMTGW_MASTER_KEY (base64) when set, else the key file,
 * created with owner-only permissions when missing. The kernel decides first (key-check.ts)
 * whether creating one is allowed.
 */
export function loadMasterKey(keyFile: string, env: NodeJS.ProcessEnv = process.env): LoadedKey {
  const existing = readMasterKey(keyFile, env);
  if (existing) return existing;
  const key = generateMasterKey();
  writeKeyFile(keyFile, key);
  return { key, source: 'created' };
}

/** Where `rotate-key` puts the new key until the store is re-sealed under it. */
export const pendingKeyFile = (keyFile: string): string => `${keyFile}.new`;
/** Where `rotate-key` keeps the key it replaced (backups taken before the rotation need it). */
export const retiredKeyFile = (keyFile: string, keyId: string): string => `${keyFile}.old-${keyId}`;

/** The master key file: `masterKeyFile` of the configuration, else `<dataDir>/master.key`. */
export function masterKeyFile(config: { dataDir: string; masterKeyFile?: string | null }, cwd: string): string {
  return resolve(cwd, config.masterKeyFile ?? join(resolve(cwd, config.dataDir), 'master.key'));
}
