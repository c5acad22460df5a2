import { connect } from 'node:net';
import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { hasStoreFiles, openStore, storeLocation } from '../store/level-store.js';
import { adminSocketPath } from './admin-socket.js';
import type { GatewayStore } from '../store/gateway-store.js';
import { backupLines, type BackupManifest, type BackupTrailer } from './backup-format.js';

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

/**
 * Writes a backup of the store in `dataDir` to `out`: from the running gateway over its admin
 * socket, or, when none runs, from the store opened here. Written to `<out>.partial` (0600) and
 * renamed once the trailer is in, so `out` is always a whole backup. With `store` (the PostgreSQL
 * store, which running gateways share), from that store's snapshot instead.
 */
export async function writeBackup(dataDir: string, out: string, version: string, store?: GatewayStore): Promise<{ manifest: BackupManifest; trailer: BackupTrailer; via: 'gateway' | 'store' }> {
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
    if (store) {
      via = 'store';
      for await (const line of backupLines(store.rawPages(), version)) await write(line);
    } else for await (const line of fromGateway(dataDir)) await write(line);
    if (first === undefined) {
      via = 'store';
      if (!hasStoreFiles(storeLocation(dataDir))) throw new Error(`there is no store in ${storeLocation(dataDir)} to back up`);
      const store = await openStore(dataDir);
      try {
        for await (const line of backupLines(store.rawPages(), version)) await write(line);
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
