/**
 * The TCP (or unix socket) listener under both CIRA listeners: it keeps every accepted socket, so
 * that shutdown can cut those still open after the tunnels' DISCONNECT (handshakes, deaf peers),
 * and listens on a host and port or on a unix socket path (owner and group only, the group `gid`
 * when given; a stale socket file left by a crash is replaced, a live one is not). A connection to
 * the socket before its mode and group are set is closed: only who the finished file admits gets in.
 */
import { chmod, chown, lstat, unlink } from 'node:fs/promises';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export type ListenTarget = { host: string; port: number } | { path: string; gid?: number };

export interface SocketListener {
  listen(target: ListenTarget): Promise<void>;
  /** Where it listens: host and port, or null on a unix socket or when not listening. */
  address(): { host: string; port: number } | null;
  /** Stops accepting; resolves once the server is closed (open sockets keep it open until cut). */
  close(): Promise<void>;
  /** Destroys every socket still open. */
  cutAll(): void;
}

const SOCKET_MODE = 0o660;

export function createSocketListener(maxConnections: number, onConnection: (raw: Socket) => void): SocketListener {
  const sockets = new Set<Socket>();
  let closing = false;
  let admitting = false;
  const server: Server = createServer((raw: Socket) => {
    if (closing || !admitting) return void raw.destroy();
    sockets.add(raw);
    raw.once('close', () => sockets.delete(raw));
    raw.on('error', () => undefined);
    raw.setNoDelay(true);
    onConnection(raw);
  });
  server.maxConnections = maxConnections;

  const listenOnce = (target: ListenTarget) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      const done = () => {
        server.off('error', reject);
        resolve();
      };
      if ('path' in target) server.listen({ path: target.path }, done);
      else server.listen(target.port, target.host, done);
    });

  return {
    async listen(target) {
      if (!('path' in target)) {
        admitting = true;
        return listenOnce(target);
      }
      try {
        await listenOnce(target);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || !(await isStaleSocket(target.path))) throw err;
        await unlink(target.path);
        await listenOnce(target);
      }
      if (target.gid !== undefined) await chown(target.path, -1, target.gid);
      await chmod(target.path, SOCKET_MODE);
      admitting = true;
    },
    address() {
      const address = server.address();
      return address && typeof address === 'object' ? { host: (address as AddressInfo).address, port: (address as AddressInfo).port } : null;
    },
    close() {
      closing = true;
      return new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
    },
    cutAll() {
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** A socket file nobody listens on (connection refused), as a crashed run leaves behind. */
async function isStaleSocket(path: string): Promise<boolean> {
  const stat = await lstat(path).catch(() => null);
  if (!stat?.isSocket()) return false;
  return new Promise((resolve) => {
    const probe = connect({ path });
    probe.once('connect', () => {
      probe.destroy();
      resolve(false);
    });
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}
