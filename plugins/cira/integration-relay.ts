/**
 * Loopback relays into CIRA tunnels, so that worker threads reach a tunnelled device exactly as a LAN
 * one: each (device, port) in use gets a listener on 127.0.0.1 with an ephemeral port; every TCP
 * connection to it becomes one APF channel to the device's port (16992/16993). Relays are made on
 * first use, closed when idle or when the tunnel goes down, and bounded in number.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { HttpError, type Logger } from '../../core/plugin-api.js';
import type { CiraService } from './api.js';

export interface TunnelRelayOptions {
  /** A relay with no connection for this long is closed (default 30,000 ms). */
  idleMs?: number;
  /** Most relays open at once (default 256); beyond, the least recently used idle one is closed. */
  maxRelays?: number;
  logger: Logger;
}

export interface TunnelRelay {
  /** The loopback port that leads to `devicePort` of the device's tunnel. */
  port(deviceId: string, devicePort: number): Promise<number>;
  /** Closes the device's relays (its tunnel went down). */
  drop(deviceId: string): void;
  /** Relays open now. */
  readonly size: number;
  close(): Promise<void>;
}

interface Relay {
  deviceId: string;
  server: Server;
  port: Promise<number>;
  sockets: Set<Socket>;
  idle: NodeJS.Timeout | undefined;
  usedAt: number;
}

export function createTunnelRelay(cira: CiraService, options: TunnelRelayOptions): TunnelRelay {
  const idleMs = options.idleMs ?? 30_000;
  const maxRelays = options.maxRelays ?? 256;
  const relays = new Map<string, Relay>();

  const close = (key: string): void => {
    const relay = relays.get(key);
    if (!relay) return;
    relays.delete(key);
    clearTimeout(relay.idle);
    relay.server.close();
    for (const socket of relay.sockets) socket.destroy();
  };

  const armIdle = (key: string, relay: Relay): void => {
    clearTimeout(relay.idle);
    relay.idle = relay.sockets.size === 0 ? setTimeout(() => close(key), idleMs).unref() : undefined;
  };

  /** Joins one accepted connection to a new channel; either side closing or failing ends both. */
  const bridge = (relay: Relay, key: string, devicePort: number, socket: Socket): void => {
    if (socket.remoteAddress !== '127.0.0.1' && socket.remoteAddress !== '::ffff:127.0.0.1') {
      socket.destroy();
      return;
    }
    relay.sockets.add(socket);
    relay.usedAt = Date.now();
    armIdle(key, relay);
    socket.pause();
    socket.on('error', () => undefined);
    socket.once('close', () => {
      relay.sockets.delete(socket);
      if (relays.get(key) === relay) armIdle(key, relay);
    });
    cira.openChannel(relay.deviceId, devicePort).then(
      (channel) => {
        if (socket.destroyed) return void channel.destroy();
        channel.on('error', () => socket.destroy());
        socket.on('error', () => channel.destroy());
        socket.once('close', () => channel.destroy());
        channel.once('close', () => socket.destroy());
        socket.pipe(channel);
        channel.pipe(socket);
        socket.resume();
      },
      (error: Error & { code?: string }) => {
        options.logger.debug('CIRA relay could not open a channel', { deviceId: relay.deviceId, port: devicePort, code: error.code });
        socket.destroy();
      },
    );
  };

  const evictIdle = (): void => {
    let oldest: [string, Relay] | undefined;
    for (const entry of relays) if (entry[1].sockets.size === 0 && (!oldest || entry[1].usedAt < oldest[1].usedAt)) oldest = entry;
    if (!oldest) throw new HttpError(503, 'GW_ERR_CIRA_RELAYS_BUSY', 'Too many devices are being reached through CIRA tunnels at once; try again shortly');
    close(oldest[0]);
  };

  return {
    async port(deviceId, devicePort) {
      const key = `${deviceId}/${devicePort}`;
      let relay = relays.get(key);
      if (!relay) {
        if (relays.size >= maxRelays) evictIdle();
        const server = createServer({ pauseOnConnect: true, noDelay: true });
        const created: Relay = {
          deviceId,
          server,
          sockets: new Set(),
          idle: undefined,
          usedAt: Date.now(),
          port: new Promise<number>((resolve, reject) => {
            server.once('error', reject);
            server.listen({ host: '127.0.0.1', port: 0 }, () => {
              server.off('error', reject);
              const address = server.address();
              resolve(typeof address === 'object' && address ? address.port : 0);
            });
          }),
        };
        server.on('connection', (socket) => bridge(created, key, devicePort, socket));
        relays.set(key, created);
        armIdle(key, created);
        relay = created;
      }
      relay.usedAt = Date.now();
      // Re-armed so a route handed out now is not closed before the worker connects.
      if (relay.sockets.size === 0) armIdle(key, relay);
      return relay.port;
    },
    drop(deviceId) {
      for (const [key, relay] of relays) if (relay.deviceId === deviceId) close(key);
    },
    get size() {
      return relays.size;
    },
    async close() {
      for (const key of [...relays.keys()]) close(key);
    },
  };
}
