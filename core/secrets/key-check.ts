import { existsSync, renameSync, rmSync } from 'node:fs';
import type { GatewayStore } from '../store/level-store.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import { generateMasterKey, MasterKeyError, pendingKeyFile, readKeyFile, readMasterKey, readOtherMasterKey, writeKeyFile, type LoadedKey } from './master-key.js';
import { createSealer, keyId } from './sealer.js';
import { sealedKeyIdsInJson } from './sealed-values.js';

/** The kernel's record of which key seals this store: its id and a known value sealed under it. */
export interface KeyCheckRecord {
  keyId: string;
  check: string;
}

export const KEY_CHECK_KEY = 'master-key-check';
const KNOWN_VALUE = 'amt-gateway master key check';

export function keyCheckRecord(key: Uint8Array): KeyCheckRecord {
  return { keyId: keyId(key), check: createSealer(key).seal(KNOWN_VALUE) };
}

/** Whether `key` opens the record's known value. */
export function keyMatches(record: KeyCheckRecord, key: Uint8Array): boolean {
  if (record.keyId !== keyId(key)) return false;
  try {
    return createSealer(key).unseal(record.check) === KNOWN_VALUE;
  } catch {
    return false;
  }
}

/** The key ids of every sealed value in the store (one pass over it; for stores that predate the key check). */
export async function sealedKeyIds(store: GatewayStore): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const page of store.rawPages()) for (const [, json] of page) for (const id of sealedKeyIdsInJson(json)) ids.add(id);
  return ids;
}

const sourceName = (loaded: LoadedKey, keyFile: string) => (loaded.source === 'env' ? 'AMTGW_MASTER_KEY' : `the key file ${keyFile}`);

function wrongKey(loaded: LoadedKey, keyFile: string, expected: string, dataDir: string): MasterKeyError {
  return new MasterKeyError(
    `the master key from ${sourceName(loaded, keyFile)} (key id ${keyId(loaded.key)}) is not the key the store in ${dataDir} is sealed with (key id ${expected}). ` +
      `Start with that key (put its file back at ${keyFile}, or set AMTGW_MASTER_KEY to it); nothing was written`,
  );
}

/** A rotation that re-sealed the store and stopped before switching the key file: finish it (see key-rotation.ts). */
function finishRotation(keyFile: string, record: KeyCheckRecord): LoadedKey | undefined {
  const pending = pendingKeyFile(keyFile);
  if (!existsSync(pending)) return undefined;
  const next = readKeyFile(pending);
  if (!keyMatches(record, next.key)) return undefined;
  renameSync(pending, keyFile);
  return next;
}

/**
 * The master key for this store, checked against the store before anything is written: the key
 * check record (written at the first start) must open under it. A key file is created only for a
 * store that holds no sealed secret yet; a missing or wrong key stops start-up naming the key
 * file and the way out. Finishes a key rotation that was cut off after re-sealing.
 */
export async function establishMasterKey(store: GatewayStore, core: KeyValueStore, keyFile: string, env: NodeJS.ProcessEnv, dataDir: string): Promise<LoadedKey & { recovered?: boolean }> {
  const record = await core.get<KeyCheckRecord>(KEY_CHECK_KEY);
  let loaded = readMasterKey(keyFile, env);
  if (record) {
    if (loaded && keyMatches(record, loaded.key)) {
      if (loaded.source === 'file') rmSync(pendingKeyFile(keyFile), { force: true });
      return loaded;
    }
    // A cluster in the middle of a rotation: the store is sealed under the other key, which this instance opens too.
    const other = readOtherMasterKey(env);
    if (loaded && other && keyMatches(record, other)) return loaded;
    if (loaded?.source !== 'env') {
      const finished = finishRotation(keyFile, record);
      if (finished) return { ...finished, recovered: true };
    }
    if (!loaded) throw missingKey(keyFile, record.keyId, dataDir);
    throw wrongKey(loaded, keyFile, record.keyId, dataDir);
  }
  // No record: a first start, or a store from before key checks. Its sealed values say which key it needs.
  const ids = await sealedKeyIds(store);
  if (!loaded) {
    if (ids.size > 0) throw missingKey(keyFile, [...ids].join(', '), dataDir);
    const key = generateMasterKey();
    writeKeyFile(keyFile, key);
    loaded = { key, source: 'created' };
  }
  const foreign = [...ids].filter((id) => id !== keyId(loaded!.key));
  if (foreign.length > 0) throw wrongKey(loaded, keyFile, foreign.join(', '), dataDir);
  await core.put(KEY_CHECK_KEY, keyCheckRecord(loaded.key));
  return loaded;
}

function missingKey(keyFile: string, expected: string, dataDir: string): MasterKeyError {
  return new MasterKeyError(
    `no master key: the key file ${keyFile} is missing and AMTGW_MASTER_KEY is not set, but the store in ${dataDir} holds secrets sealed under key id ${expected}. ` +
      `Put that key file back (or set AMTGW_MASTER_KEY); a new key would leave them unreadable, so none was created and nothing was written`,
  );
}
