/**
 * Loopback relays into CIRA tunnels, so that worker threads reach a tunnelled device exactly as a LAN
 * one: each (device, port) in use gets a listener on 127.0.0.1 with an ephemeral port; every TCP
 * connection to it becomes one APF channel to the device's port (16992/16993). Relays are made on
 * first use, closed when idle or when the tunnel goes down, and bounded in number.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { HttpError, type Logger } from '../../core/plugin-api.js';
import type { CiraService } from './api.js';

export interface TunnelRelayOptions {
  /** A relay with no connection for this long is closed (default 30,000 ms). */
  idleMs?: number;
  /** Most relays open at once (default 256); beyond, the least recently used idle one is closed. */
  maxRelays?: number;
  /** A channel opened ahead for the next connection is closed unused after this (default 2,000 ms). */
  spareMs?: number;
  logger: Logger;
}

export interface TunnelRelay {
  /** The loopback port that leads to `devicePort` of the device's tunnel. */
  port(deviceId: string, devicePort: number): Promise<number>;
  /** Closes the device's relays (its tunnel went down). */
  drop(deviceId: string): void;
  close(): Promise<void>;
}

interface Relay {
  deviceId: string;
  server: Server;
  port: Promise<number>;
  sockets: Set<Socket>;
  idle: NodeJS.Timeout | undefined;
  usedAt: number;
  /** A channel opened when the route was handed out, for the connection the worker is about to make. */
  spare: Promise<Duplex> | undefined;
}

export function createTunnelRelay(cira: CiraService, options: TunnelRelayOptions): TunnelRelay {
  const idleMs = options.idleMs ?? 30_000;
  const maxRelays = options.maxRelays ?? 256;
  const spareMs = options.spareMs ?? 2_000;
  const relays = new Map<string, Relay>();

  /**
   * Opens the channel for the connection a worker will make right after it was given the route, so
   * that the APF open round trip overlaps the task's dispatch instead of following it. Unused, it is
   * closed after `spareMs` (AMT serves few connections at once).
   */
  const openSpare = (relay: Relay, devicePort: number): void => {
    if (relay.spare) return;
    const spare = cira.openChannel(relay.deviceId, devicePort);
    relay.spare = spare;
    spare.then(
      (channel) => {
        channel.on('error', () => undefined);
        setTimeout(() => {
          if (relay.spare !== spare) return;
          relay.spare = undefined;
          channel.destroy();
        }, spareMs).unref();
      },
      () => {
        if (relay.spare === spare) relay.spare = undefined;
      },
    );
  };

  /** The spare channel if one is open or opening, else a new one. */
  const takeChannel = (relay: Relay, devicePort: number): Promise<Duplex> => {
    const spare = relay.spare;
    relay.spare = undefined;
    if (!spare) return cira.openChannel(relay.deviceId, devicePort);
    return spare.then(
      (channel) => (channel.destroyed ? cira.openChannel(relay.deviceId, devicePort) : channel),
      () => cira.openChannel(relay.deviceId, devicePort),
    );
  };

  const close = (key: string): void => {
    const relay = relays.get(key);
    if (!relay) return;
    relays.delete(key);
    clearTimeout(relay.idle);
    relay.server.close();
    void relay.spare?.then((channel) => channel.destroy(), () => undefined);
    relay.spare = undefined;
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
    takeChannel(relay, devicePort).then(
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
          spare: undefined,
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
      openSpare(relay, devicePort);
      return relay.port;
    },
    drop(deviceId) {
      for (const [key, relay] of relays) if (relay.deviceId === deviceId) close(key);
    },
    async close() {
      for (const key of [...relays.keys()]) close(key);
    },
  };
}
