/**
 * A KVM device stream read into reused slabs (workers/amt/redirection/slab-reads.ts), relayed to a
 * real WebSocket viewer on loopback: the screen's bytes go out from a bounded set of memory instead
 * of a fresh buffer per read, and none is overwritten while it waits to be written, also when the
 * viewer stops reading for a while.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { WebSocket, WebSocketServer } from 'ws';
import { startRelay } from '../../../plugins/redirection/relay.js';
import type { SessionCodec } from '../../../plugins/redirection/modes/mode.js';
import { SlabReads } from '../../../workers/amt/redirection/slab-reads.js';
import { StreamReader } from '../../../workers/amt/redirection/stream-reader.js';
import { until } from '../../helpers/poll.js';

const KVM_LIKE: SessionCodec = { fromDevice: (chunk) => [chunk], toDevice: (data) => [data], passThrough: true };
const FRAMES = 40;
const FRAME_BYTES = 256 * 1024;

test('a device stream read into reused slabs reaches the viewer intact, from bounded memory, through a stall', async () => {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  await once(wss, 'listening');
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const deviceEnd = once(server, 'connection') as Promise<[Socket]>;
  const slabReads = new SlabReads();
  const gatewayEnd = connect({ port: (server.address() as { port: number }).port, host: '127.0.0.1', onread: slabReads.onread });
  slabReads.bind(gatewayEnd);
  const [device] = await deviceEnd;

  // The handshake's exact-length reads see the bytes as 'data', before the relay takes the stream.
  device.write(Buffer.from('HELLO-123'));
  const reader = new StreamReader(gatewayEnd, 'test device');
  assert.equal((await reader.read(5)).toString(), 'HELLO');
  const leftover = reader.release();

  const accepted = once(wss, 'connection') as Promise<[WebSocket, { socket: Socket }]>;
  const viewer = new WebSocket(`ws://127.0.0.1:${(wss.address() as { port: number }).port}`);
  const [ws, req] = await accepted;
  await once(viewer, 'open');
  const sentFrom = new Set<ArrayBufferLike>();
  let messages = 0;
  const send = ws.send.bind(ws) as (data: Buffer, ...rest: unknown[]) => void;
  (ws as unknown as { send: (data: Buffer, ...rest: unknown[]) => void }).send = (data, ...rest) => {
    sentFrom.add(data.buffer);
    messages++;
    send(data, ...rest);
  };
  const relay = startRelay({ ws, viewerSocket: req.socket, stream: gatewayEnd, slabReads, leftover, codec: KVM_LIKE, idleMs: 60_000, deviceClose: 'device', onEnd: () => undefined });

  const received = createHash('sha256');
  const expected = createHash('sha256').update('-123');
  let got = 0;
  viewer.on('message', (data: Buffer) => {
    received.update(data);
    got += data.length;
  });
  // Half the frames while the viewer does not read (reads pile up, the relay pauses the device), half once it reads again.
  viewer.pause();
  for (let i = 0; i < FRAMES; i++) {
    const frame = randomBytes(FRAME_BYTES);
    expected.update(frame);
    if (!device.write(frame)) await once(device, 'drain').catch(() => undefined);
    if (i === FRAMES / 2) viewer.resume();
  }
  viewer.resume();
  const total = 4 + FRAMES * FRAME_BYTES;
  try {
    await until(`all ${total} bytes reach the viewer`, () => got === total);
    assert.equal(received.digest('hex'), expected.digest('hex'), 'the viewer got every byte in order, none overwritten while it waited');
    assert.ok(messages > 100, `the frames went out as many reads (${messages} messages)`);
    assert.ok(sentFrom.size <= 64, `the reads came from a bounded set of memory: ${sentFrom.size} buffers for ${messages} messages`);
  } finally {
    relay.end('viewer');
    viewer.terminate();
    device.destroy();
    server.close();
    wss.close();
  }
});
