/**
 * The admin socket: a Unix domain socket `<dataDir>/admin.sock` through which `amt-gateway backup`
 * asks the running gateway for a snapshot of the store it holds locked. Local only by
 * construction (no network address), and authenticated by the file system: the socket is 0600 in
 * the gateway's data directory, so only its owner (and root) can connect, the same people who could
 * read the store's files anyway. One request at a time; the answer is the backup's lines.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { chmodSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { GatewayStore } from '../store/level-store.js';
import type { Logger } from '../log/logger.js';
import { backupLines } from './backup-format.js';

export const adminSocketPath = (dataDir: string): string => join(dataDir, 'admin.sock');

const MAX_REQUEST = 1024;
const REQUEST_TIMEOUT_MS = 5000;

export interface AdminSocket {
  close(): Promise<void>;
}

/**
 * Serves backups on the admin socket, authenticated under `masterKey` (the store's). Starting it may
 * fail (e.g. a path too long for a socket): logged, not fatal.
 */
export async function startAdminSocket(dataDir: string, store: GatewayStore, version: string, masterKey: Uint8Array, logger: Logger): Promise<AdminSocket | undefined> {
  const path = adminSocketPath(dataDir);
  // A socket left by a gateway that was killed: this process holds the store's lock, so no other gateway uses it.
  rmSync(path, { force: true });
  let busy = false;
  const server: Server = createServer((socket) => serve(socket));
  const serve = (socket: Socket) => {
    socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy());
    let request = '';
    socket.setEncoding('utf8');
    socket.on('error', () => undefined);
    socket.on('data', (chunk: string) => {
      request += chunk;
      if (request.length > MAX_REQUEST) return socket.destroy();
      if (!request.includes('\n')) return;
      socket.removeAllListeners('data');
      socket.setTimeout(0);
      const op = (() => {
        try {
          return (JSON.parse(request.split('\n')[0]!) as { op?: unknown }).op;
        } catch {
          return undefined;
        }
      })();
      if (op !== 'backup') return socket.end(JSON.stringify({ error: 'unknown request' }) + '\n');
      if (busy) return socket.end(JSON.stringify({ error: 'a backup is already running' }) + '\n');
      busy = true;
      void sendBackup(socket).finally(() => (busy = false));
    });
  };
  const sendBackup = async (socket: Socket) => {
    try {
      logger.info('backup started over the admin socket');
      for await (const line of backupLines(store.rawPages(), version, masterKey)) {
        if (socket.destroyed) return;
        if (!socket.write(line)) await new Promise((resolve) => socket.once('drain', resolve));
      }
      socket.end();
      logger.info('backup served over the admin socket');
    } catch (err) {
      logger.error('backup failed', { error: (err as Error).message });
      socket.destroy();
    }
  };
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
    chmodSync(path, 0o600);
  } catch (err) {
    logger.warn('admin socket not started: amt-gateway backup needs the gateway stopped', { path, error: (err as Error).message });
    return undefined;
  }
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        rmSync(path, { force: true });
      }),
  };
}
