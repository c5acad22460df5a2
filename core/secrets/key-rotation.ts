/**
 * `amt-gateway rotate-key`: every sealed value of the store re-sealed under a new master key, so
 * that a kill at any moment leaves every secret readable under the old or the new key, never a mix:
 *
 * 1. the new key goes to `<key file>.new` and the old one is kept as `<key file>.old-<id>`
 *    (both written and synced before anything else);
 * 2. every re-sealed value and the new key check are written in one LevelDB batch, synced: before
 *    it lands the store is wholly under the old key, after it wholly under the new one;
 * 3. `<key file>.new` is renamed over the key file (atomic).
 *
 * Cut off between 2 and 3, the store is sealed under the key in `.new`: the next start (or
 * rotate-key) sees that the key check opens under it and finishes the rename (key-check.ts).
 */
import { existsSync, rmSync } from 'node:fs';
import type { GatewayStore } from '../store/level-store.js';
import { establishMasterKey, KEY_CHECK_KEY, keyCheckRecord } from './key-check.js';
import { generateMasterKey, MasterKeyError, pendingKeyFile, retiredKeyFile } from './master-key.js';
import { createSealer, keyId } from './sealer.js';
import { mapSealed, sealedKeyId, sealedKeyIdsInJson } from './sealed-values.js';
import { renameDurable, writeDurable } from './durable-file.js';

/** The raw key of the kernel's key check record (namespace `core`). */
const KEY_CHECK_RAW = `!core!${KEY_CHECK_KEY}`;

export interface RotationResult {
  oldKeyId: string;
  newKeyId: string;
  /** Stored values that held at least one sealed secret. */
  resealedValues: number;
  retiredKeyFile: string;
}

/**
 * The writes that re-seal every sealed value of `store` under `to` (those sealed under `to` already
 * stay), the new key check last: for one atomic batch. A value sealed under a key neither `to` nor
 * one of `from` stops it, nothing written.
 */
export async function resealOperations(store: GatewayStore, from: readonly Uint8Array[], to: Uint8Array): Promise<Array<{ type: 'put'; key: string; value: string }>> {
  const toId = keyId(to);
  const opener = createSealer(to, from);
  const sealer = createSealer(to);
  const known = new Set([toId, ...from.map(keyId)]);
  const operations: Array<{ type: 'put'; key: string; value: string }> = [];
  for await (const page of store.rawPages()) {
    for (const [key, json] of page) {
      if (key === KEY_CHECK_RAW) continue;
      const ids = sealedKeyIdsInJson(json);
      if (ids.every((id) => id === toId)) continue;
      const foreign = ids.find((id) => !known.has(id));
      if (foreign) throw new MasterKeyError(`rotate-key stopped: the value at ${key} holds a secret sealed under key id ${foreign}, not under ${[...known].join(' or ')}; nothing was changed`);
      const resealed = mapSealed(JSON.parse(json) as unknown, (sealed) => (sealedKeyId(sealed) ? sealer.seal(opener.unseal(sealed)) : sealed));
      operations.push({ type: 'put', key, value: JSON.stringify(resealed) });
    }
  }
  operations.push({ type: 'put', key: KEY_CHECK_RAW, value: JSON.stringify(keyCheckRecord(to)) });
  return operations;
}

/** Rotates the master key of a store the caller opened (so no gateway runs on it). */
export async function rotateMasterKey(store: GatewayStore, keyFile: string, env: NodeJS.ProcessEnv, dataDir: string, step: (what: string) => void = () => undefined): Promise<RotationResult> {
  if (env.AMTGW_MASTER_KEY) {
    throw new MasterKeyError(`rotate-key replaces the key file ${keyFile}; AMTGW_MASTER_KEY is set, so the gateway does not read that file. Put the key into the file, unset AMTGW_MASTER_KEY, and run rotate-key again`);
  }
  const current = await establishMasterKey(store, store.namespace('core'), keyFile, {}, dataDir);
  const oldKey = current.key;
  const oldId = keyId(oldKey);
  const newKey = generateMasterKey();
  const newId = keyId(newKey);
  const pending = pendingKeyFile(keyFile);
  rmSync(pending, { force: true }); // a .new that the store is not sealed under is a rotation that never re-sealed
  const retired = retiredKeyFile(keyFile, oldId);
  if (!existsSync(retired)) writeDurable(retired, Buffer.from(oldKey).toString('base64') + '\n');
  writeDurable(pending, Buffer.from(newKey).toString('base64') + '\n');
  step('new key written');

  const operations = await resealOperations(store, [oldKey], newKey);
  step(`re-sealing ${operations.length - 1} values`);
  await store.rawBatch(operations);
  step('store re-sealed');
  renameDurable(pending, keyFile);
  step('key file switched');
  return { oldKeyId: oldId, newKeyId: newId, resealedValues: operations.length - 1, retiredKeyFile: retired };
}
