/**
 * Hostile CIRA clients for `npm run bench -- cira-flood`: connections that declare a large APF
 * message before sign-in and send all of it but its last byte, and connections that repeat
 * USERAUTH_REQUEST with method `none` as fast as the gateway takes them (redialing when closed).
 */
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { encode } from '../sim/cira-apf.js';

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};
const field = (s: string) => Buffer.concat([u32(Buffer.byteLength(s)), Buffer.from(s)]);
const uuid = (n: number) => `${n.toString(16).padStart(8, '0')}-5555-6666-7777-888899990000`;

/** The n-th loopback address of the benchmark's flood range (127.201.0.1 upward, 250 per /24). */
export const floodAddress = (n: number) => `127.201.${Math.floor(n / 250)}.${(n % 250) + 1}`;

function dial(port: number, localAddress: string): Promise<TLSSocket | null> {
  return new Promise((resolve) => {
    const tcp = netConnect({ host: '127.0.0.1', port, localAddress });
    tcp.on('error', () => resolve(null));
    const socket = tlsConnect({ socket: tcp, rejectUnauthorized: false, maxVersion: 'TLSv1.2' }, () => resolve(socket));
    socket.on('error', () => resolve(null));
    socket.once('close', () => resolve(null));
  });
}

export interface DeclaredFlood {
  /** Connections that completed TLS, those refused before, and those the gateway closed before the flood was released. */
  connected: number;
  refused: number;
  closedByGateway(): number;
  /** Closes every connection still open. */
  release(): void;
}

/**
 * `count` connections (all at once by default), each from its own address: PROTOCOLVERSION, the auth service request, then a
 * CHANNEL_DATA declaring `declaredBytes` and all of it but the last byte. Resolves once every
 * connection sent its bytes or was closed.
 */
export async function declaredMessageFlood(port: number, count: number, declaredBytes: number, concurrency = count): Promise<DeclaredFlood> {
  const body = Buffer.alloc(declaredBytes - 10, 0x41);
  const sockets: TLSSocket[] = [];
  let connected = 0;
  let refused = 0;
  let next = 0;
  const one = async (n: number) => {
    const socket = await dial(port, floodAddress(n));
    if (!socket) return void refused++;
    connected++;
    // Read what the gateway answers, so that its close is seen.
    socket.resume();
    sockets.push(socket);
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.write(Buffer.concat([encode.protocolVersion(uuid(n)), encode.serviceRequest('auth@amt.intel.com'), Buffer.of(94), u32(1), u32(declaredBytes - 9)]));
      socket.write(body, () => resolve());
    });
  };
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await one(next++);
  }));
  return { connected, refused, closedByGateway: () => sockets.filter((s) => s.destroyed).length, release: () => sockets.forEach((s) => s.destroy()) };
}

function drainedOrClosed(socket: TLSSocket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });
}

export interface NoneFlood {
  requestsSent: number;
  bytesAnswered: number;
  connections: number;
}

/** `clients` connections sending USERAUTH_REQUEST `none` in batches for `durationMs`, redialing when closed. */
export async function userauthNoneFlood(port: number, clients: number, durationMs: number, firstAddress: number): Promise<NoneFlood> {
  const batch = Buffer.concat(Array.from({ length: 500 }, () => Buffer.concat([Buffer.of(50), field('nobody'), field('pfwd@amt.intel.com'), field('none')])));
  const totals: NoneFlood = { requestsSent: 0, bytesAnswered: 0, connections: 0 };
  const deadline = Date.now() + durationMs;
  const client = async (n: number) => {
    while (Date.now() < deadline) {
      const socket = await dial(port, floodAddress(firstAddress + n));
      if (!socket) continue;
      totals.connections++;
      socket.on('data', (chunk: Buffer) => void (totals.bytesAnswered += chunk.length));
      socket.write(Buffer.concat([encode.protocolVersion(uuid(90_000 + n)), encode.serviceRequest('auth@amt.intel.com')]));
      while (Date.now() < deadline && !socket.destroyed && socket.writable) {
        totals.requestsSent += 500;
        if (!socket.write(batch)) await drainedOrClosed(socket);
      }
      socket.destroy();
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, n) => client(n)));
  return totals;
}
