import { connect } from 'node:net';
import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { hasStoreFiles, openStore, storeLocation } from '../store/level-store.js';
import { adminSocketPath } from './admin-socket.js';
import { backupLines, KERNEL_NAMESPACE, type BackupManifest, type BackupTrailer } from './backup-format.js';
import { KEY_CHECK_KEY, keyMatches, type KeyCheckRecord } from '../secrets/key-check.js';
import { MasterKeyError, readMasterKey } from '../secrets/master-key.js';

/** The lines of a backup from the running gateway's admin socket; undefined when no gateway answers there. */
async function* fromGateway(dataDir: string): AsyncGenerator<string> {
  const socket = connect(adminSocketPath(dataDir));
  try {
    await once(socket, 'connect');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ECONNREFUSED') return;
    throw err;
  }
  socket.write(JSON.stringify({ op: 'backup' }) + '\n');
  for await (const line of createInterface({ input: socket, crlfDelay: Infinity })) {
    const error = line.startsWith('{"error"') ? (JSON.parse(line) as { error: string }).error : undefined;
    if (error) throw new Error(`the gateway refused the backup: ${error}`);
    yield line + '\n';
  }
}

/** The master key for a backup of the stopped store: it must be the store's, since it authenticates the backup. */
async function storeKey(store: Awaited<ReturnType<typeof openStore>>, keyFile: string, env: NodeJS.ProcessEnv): Promise<Uint8Array> {
  const loaded = readMasterKey(keyFile, env);
  if (!loaded) throw new MasterKeyError(`a backup is authenticated with the master key, and there is none: put the key file at ${keyFile} or set AMTGW_MASTER_KEY`);
  const check = await store.namespace(KERNEL_NAMESPACE).get<KeyCheckRecord>(KEY_CHECK_KEY);
  if (check && !keyMatches(check, loaded.key)) throw new MasterKeyError(`the master key from ${loaded.source === 'env' ? 'AMTGW_MASTER_KEY' : keyFile} is not the key the store is sealed with (key id ${check.keyId}); no backup was written`);
  return loaded.key;
}

/**
 * Writes a backup of the store in `dataDir` to `out`: from the running gateway over its admin
 * socket, or, when none runs, from the store opened here (then the master key from `keyFile` or
 * AMTGW_MASTER_KEY authenticates it). Written to `<out>.partial` (0600) and renamed once the trailer
 * is in, so `out` is always a whole backup.
 */
export async function writeBackup(dataDir: string, out: string, version: string, keyFile = `${dataDir}/master.key`, env: NodeJS.ProcessEnv = process.env): Promise<{ manifest: BackupManifest; trailer: BackupTrailer; via: 'gateway' | 'store' }> {
  const partial = `${out}.partial`;
  const file = createWriteStream(partial, { mode: 0o600, flags: 'wx' });
  let first: string | undefined;
  let last = '';
  let via: 'gateway' | 'store' = 'gateway';
  const write = async (line: string) => {
    first ??= line;
    last = line;
    if (!file.write(line)) await once(file, 'drain');
  };
  try {
    for await (const line of fromGateway(dataDir)) await write(line);
    if (first === undefined) {
      via = 'store';
      if (!hasStoreFiles(storeLocation(dataDir))) throw new Error(`there is no store in ${storeLocation(dataDir)} to back up`);
      const store = await openStore(dataDir);
      try {
        for await (const line of backupLines(store.rawPages(), version, await storeKey(store, keyFile, env))) await write(line);
      } finally {
        await store.close();
      }
    }
    const trailer = JSON.parse(last || '{}') as BackupTrailer;
    if (trailer.end !== true) throw new Error('the backup was cut short (the gateway stopped answering); no backup file was written');
    file.end();
    await once(file, 'close');
    renameSync(partial, out);
    return { manifest: JSON.parse(first!) as BackupManifest, trailer, via };
  } catch (err) {
    file.destroy();
    rmSync(partial, { force: true });
    throw err;
  }
}
