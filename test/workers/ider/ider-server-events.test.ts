/**
 * The IDE-R server's answers to what a device may send besides commands, driven byte by byte over a
 * loopback connection: a ping gets a pong, a bus reset in the middle of a long read stops the read
 * and is answered once the piece under way is out, an unknown message ends the session as a
 * protocol error, and a device that falls silent is let go.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Socket } from 'node:net';
import { IderServer, type IderMedium } from '../../../workers/amt/redirection/ider/ider-server.js';
import { IderEncoder } from '../../../workers/amt/redirection/ider/ider-wire.js';

const medium: IderMedium = { kind: 'cd', sizeBytes: 64 * 1024 * 1024, read: async (into, offset, length) => (into.fill(7, offset, offset + length), length) };

async function pair(): Promise<{ gateway: Socket; device: Socket; close(): void }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  const gateway = connect((server.address() as { port: number }).port, '127.0.0.1');
  const device = await accepted;
  return { gateway, device, close: () => (gateway.destroy(), device.destroy(), server.close()) };
}

function serve(gateway: Socket, options: Partial<{ silenceMs: number }> = {}) {
  return new IderServer(gateway, Buffer.alloc(0), { cd: medium }, new IderEncoder(), 8192, { heartbeatMs: 10_000, silenceMs: options.silenceMs ?? 10_000, idleMs: 60_000, pieceBytes: 65536 });
}

function message(type: number, length: number, fill: (m: Buffer) => void = () => undefined): Buffer {
  const m = Buffer.alloc(length);
  m[0] = type;
  fill(m);
  return m;
}

/** Collects the types of the messages the device receives (DATA_TO_HOST skipped by its length). */
function received(device: Socket): number[] {
  const types: number[] = [];
  let pending = Buffer.alloc(0);
  device.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      if (pending.length < 8) return;
      const type = pending[0]!;
      const length = type === 0x54 ? (pending.length >= 11 ? 34 + pending.readUInt16LE(9) : Infinity) : type === 0x51 ? 31 : 8;
      if (pending.length < length) return;
      types.push(type);
      pending = pending.subarray(length);
    }
  });
  return types;
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(check());
};

test('a ping gets a pong; a bus reset during a long read stops it and is answered after the piece under way', async () => {
  const { gateway, device, close } = await pair();
  const server = serve(gateway);
  const types = received(device);
  device.write(message(0x44, 8));
  await until(() => types.includes(0x45));
  // READ(10) of 20,000 blocks (40 MB): far more than is sent before the reset arrives.
  device.write(message(0x50, 28, (m) => (m[14] = 0x10, m.set([0x28, 0, 0, 0, 0, 0, 0, 0x4e, 0x20], 16))));
  await until(() => types.filter((t) => t === 0x54).length >= 8);
  device.write(message(0x46, 9));
  await until(() => types.includes(0x47));
  const sent = types.filter((t) => t === 0x54).length;
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(types.filter((t) => t === 0x54).length, sent, 'no data after the reset response');
  assert.ok(sent < 20_000 / 4, `the read stopped early (${sent} pieces)`);
  assert.ok(server.bytesServed < 40_000_000);
  server.end('deleted');
  assert.equal((await server.done).reason, 'deleted');
  close();
});

test('an unknown message ends the session as a protocol error; a silent device is let go', async () => {
  const first = await pair();
  const broken = serve(first.gateway);
  first.device.write(message(0x99, 8));
  assert.deepEqual(await broken.done, { reason: 'protocol', detail: 'unexpected IDE-R message 0x99' });
  first.close();
  const second = await pair();
  const silent = serve(second.gateway, { silenceMs: 300 });
  assert.equal((await silent.done).reason, 'silent');
  second.close();
});
