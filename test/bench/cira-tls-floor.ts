/**
 * What Node's TLS alone costs per idle connection, the floor under a CIRA tunnel:
 * `node --expose-gc --import tsx test/bench/cira-tls-floor.ts [N] [node|offload]`. A plain TLS
 * server (no APF) in this process, N TLS 1.2 clients in a child process dialing from their own
 * 127.210.x.y; RSS and JS heap after the handshakes, after each connection carried ~2 KB each way,
 * and after all closed. `node`: Node's TLS socket per connection; `offload`: the CIRA server's
 * record layer after Node's handshake (plugins/cira/tls).
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { constants } from 'node:crypto';
import { createServer as createTcpServer, type Server } from 'node:net';
import { connect, createSecureContext, createServer, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { acceptTls, type TunnelSocket } from '../../plugins/cira/tls/tls-accept.js';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const CERTS = fileURLToPath(new URL('../sim/certs/', import.meta.url));
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const mib = (bytes: number) => (bytes / 1048576).toFixed(1);

async function client(port: number, n: number): Promise<void> {
  const sockets: TLSSocket[] = [];
  for (let i = 0; i < n; i++) {
    const localAddress = `127.210.${Math.floor(i / 250)}.${(i % 250) + 1}`;
    await new Promise<void>((resolve) => {
      // localAddress reaches net.connect; the TLS option type does not list it.
      const options: ConnectionOptions & { localAddress: string } = { host: '127.0.0.1', port, localAddress, rejectUnauthorized: false, maxVersion: 'TLSv1.2' };
      const socket = connect(options, resolve);
      socket.on('error', () => resolve());
      socket.on('data', () => undefined);
      sockets.push(socket);
    });
  }
  process.send?.('up');
  process.on('message', () => {
    for (const socket of sockets) socket.write(Buffer.alloc(2000, 1));
    setTimeout(() => process.send?.('talked'), 3000);
  });
}

function serve(socket: TunnelSocket): void {
  socket.on('data', () => socket.write(Buffer.alloc(3000, 2)));
  socket.on('error', () => undefined);
}

async function server(n: number, mode: string): Promise<void> {
  const cert = readFileSync(`${CERTS}device-a.cert.pem`);
  const key = readFileSync(`${CERTS}device-a.key.pem`);
  let offloaded = 0;
  const secureContext = createSecureContext({ cert, key, secureOptions: constants.SSL_OP_NO_TICKET });
  const tls: Server =
    mode === 'offload'
      ? createTcpServer((raw) => {
          raw.on('error', () => undefined);
          acceptTls(raw, { secureContext, handshakeTimeoutMs: 30_000, accepted: (socket, yes) => (serve(socket), (offloaded += Number(yes))), failed: () => undefined });
        })
      : createServer({ cert, key }, serve);
  await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
  gc();
  const base = process.memoryUsage().rss;
  const line = (what: string) => {
    gc();
    const m = process.memoryUsage();
    console.log(`${what}: RSS ${mib(m.rss)} MiB (${((m.rss - base) / 1024 / n).toFixed(1)} KiB a connection), JS heap ${mib(m.heapUsed)} of ${mib(m.heapTotal)} MiB, external ${mib(m.external)} MiB`);
  };
  line('no connection');
  const child = fork(SELF, ['client', String((tls.address() as AddressInfo).port), String(n)]);
  child.on('message', (message) => {
    if (message === 'up') {
      line(`${n} idle connections (${mode}${mode === 'offload' ? `, ${offloaded} taken over` : ''})`);
      child.send('talk');
      return;
    }
    line(`${n} connections after one exchange`);
    child.kill();
    setTimeout(() => {
      line('all closed');
      process.exit(0);
    }, 3000);
  });
}

if (process.argv[2] === 'client') await client(Number(process.argv[3]), Number(process.argv[4]));
else await server(Number(process.argv[2] ?? 3000), process.argv[3] ?? 'node');
