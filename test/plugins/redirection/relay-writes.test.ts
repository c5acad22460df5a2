/**
 * The relay's writes towards the viewer, with a real WebSocket pair on loopback: what the device
 * sends in one turn of the event loop leaves in one write to the viewer's socket, large reads as
 * messages of their own (no copy), small ones joined, in order; a viewer that stops reading holds the device back (bounded
 * buffering), and everything arrives once it reads again.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { startRelay, type Relay } from '../../../plugins/redirection/relay.js';
import type { SessionCodec } from '../../../plugins/redirection/modes/mode.js';
import { until } from '../../helpers/poll.js';

const PASS: SessionCodec = { fromDevice: (chunk) => [chunk], toDevice: (data) => [data] };
let wss: WebSocketServer;
let url: string;

before(async () => {
  wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  await once(wss, 'listening');
  url = `ws://127.0.0.1:${(wss.address() as { port: number }).port}`;
});

after(() => wss.close());

/** A relay between a new viewer WebSocket and `stream`; the viewer's socket on the gateway side is returned too. */
async function relayTo(stream: PassThrough | Socket): Promise<{ viewer: WebSocket; gatewaySocket: Socket; relay: Relay }> {
  const accepted = once(wss, 'connection') as Promise<[WebSocket, { socket: Socket }]>;
  const viewer = new WebSocket(url);
  const [ws, req] = await accepted;
  await once(viewer, 'open');
  const relay = startRelay({ ws, viewerSocket: req.socket, stream, leftover: Buffer.alloc(0), codec: PASS, idleMs: 60_000, deviceClose: 'device', onEnd: () => undefined });
  return { viewer, gatewaySocket: req.socket, relay };
}

test('device reads of one turn leave in one write to the viewer socket: large reads as messages of their own, small ones joined, in order', async () => {
  const device = new PassThrough();
  const { viewer, gatewaySocket, relay } = await relayTo(device);
  let writes = 0;
  for (const method of ['_write', '_writev'] as const) {
    const original = gatewaySocket[method] as (...args: unknown[]) => void;
    (gatewaySocket as unknown as Record<string, unknown>)[method] = function (this: Socket, ...args: unknown[]) {
      writes++;
      return original.apply(this, args);
    };
  }
  const received: Buffer[] = [];
  viewer.on('message', (data: Buffer) => received.push(data));
  const large = Array.from({ length: 6 }, (_, i) => Buffer.alloc(20_000 + i, i + 1));
  const small = Array.from({ length: 10 }, (_, i) => Buffer.alloc(500, 100 + i));
  for (const part of [...large, ...small]) device.write(part);
  await until('seven messages arrive', () => received.length === 7);
  assert.deepEqual(received.map((m) => m.length), [...large.map((p) => p.length), 5_000]);
  assert.ok(large.every((part, i) => received[i]!.equals(part)), 'each large read is a message of its own, in order');
  assert.ok(received[6]!.equals(Buffer.concat(small)), 'the small reads are joined into one message, in order');
  assert.equal(writes, 1, 'the seven messages left in one write to the viewer socket');
  relay.end('viewer');
});

test('a viewer that stops reading holds the device back; everything arrives once it reads again', async () => {
  const server: Server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const deviceEnd = once(server, 'connection') as Promise<[Socket]>;
  const gatewayEnd = connect((server.address() as { port: number }).port, '127.0.0.1');
  const [device] = await deviceEnd;
  const { viewer, relay } = await relayTo(gatewayEnd);
  viewer.pause();
  const chunk = Buffer.alloc(64 * 1024, 7);
  let sent = 0;
  // The device writes until its socket stops taking bytes for good (no 'drain' within 500 ms).
  for (;;) {
    while (device.write(chunk)) sent += chunk.length;
    sent += chunk.length;
    const drained = await Promise.race([once(device, 'drain').then(() => true), new Promise((r) => setTimeout(() => r(false), 500))]);
    if (!drained) break;
    assert.ok(sent < 256 * 1024 * 1024, 'the device was never held back');
  }
  assert.ok(gatewayEnd.isPaused(), 'the relay paused the device stream');
  let got = 0;
  viewer.on('message', (data: Buffer) => void (got += data.length));
  viewer.resume();
  await until(`all ${sent} bytes reach the viewer`, () => got === sent);
  assert.equal(relay.bytesFromDevice, sent);
  relay.end('viewer');
  device.destroy();
  server.close();
});
