/**
 * The operator commands beside `serve`: `backup`, `restore`, `rotate-key`. Each reads the same
 * configuration as the gateway (`--config`, AMTGW_* variables) to find the data directory and
 * the master key file, and prints one line saying what it did.
 */
import { resolve } from 'node:path';
import type { GatewayConfig } from '../config/gateway-config.js';
import { masterKeyFile } from '../secrets/master-key.js';
import { openStore, StoreLockedError } from '../store/level-store.js';
import { isStoreLocked } from '../store/store-errors.js';
import { rotateMasterKey } from '../secrets/key-rotation.js';
import { writeBackup } from '../backup/backup-client.js';
import { restoreBackup } from '../backup/restore.js';
import { PACKAGE_VERSION } from '../assets/package-root.js';

type Print = (line: string) => void;

export async function backupCommand(config: GatewayConfig, out: string | undefined, print: Print): Promise<void> {
  if (!out) throw new Error('backup needs --out FILE');
  const dataDir = resolve(config.dataDir);
  const { manifest, trailer, via } = await writeBackup(dataDir, resolve(out), PACKAGE_VERSION, masterKeyFile(config, process.cwd()), process.env);
  print(`backup written to ${resolve(out)}: ${trailer.entries} entries, key id ${manifest.keyId ?? 'none'}, sha256 ${trailer.sha256} (${via === 'gateway' ? 'from the running gateway' : 'from the stopped store'})`);
}

export async function restoreCommand(config: GatewayConfig, file: string | undefined, env: NodeJS.ProcessEnv, print: Print, acceptUnauthenticated = false): Promise<void> {
  if (!file) throw new Error('restore needs the backup file: amt-gateway restore FILE');
  const dataDir = resolve(config.dataDir);
  const { entries, manifest } = await restoreBackup(resolve(file), dataDir, masterKeyFile(config, process.cwd()), env, { acceptUnauthenticated });
  if (manifest.formatVersion === 1) print('restore: the backup is of format 1, which carries no authentication: restored on your word that nobody changed it (--accept-unauthenticated-backup)');
  print(`restored ${entries} entries (gateway ${manifest.gatewayVersion}, key id ${manifest.keyId ?? 'none'}, taken ${manifest.createdAt}) into ${dataDir}`);
}

export async function rotateKeyCommand(config: GatewayConfig, env: NodeJS.ProcessEnv, print: Print): Promise<void> {
  const dataDir = resolve(config.dataDir);
  print('rotate-key: opening the store');
  let store;
  try {
    store = await openStore(dataDir);
  } catch (err) {
    if (isStoreLocked(err)) throw new StoreLockedError(`${dataDir} (stop the gateway before rotate-key)`);
    throw err;
  }
  try {
    const result = await rotateMasterKey(store, masterKeyFile(config, process.cwd()), env, dataDir, (step) => print(`rotate-key: ${step}`));
    print(`master key rotated: key id ${result.oldKeyId} -> ${result.newKeyId}, ${result.resealedValues} stored values re-sealed; the old key is kept in ${result.retiredKeyFile} for backups taken before now`);
  } finally {
    await store.close();
  }
}
