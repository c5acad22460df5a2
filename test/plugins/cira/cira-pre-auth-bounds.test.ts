/**
 * Before sign-in a connection holds little and gets few answers: a message type the state does not
 * take is refused from its first byte, messages are capped at preAuth.maxMessageBytes, connections
 * not signed in are bounded per address and in total (the refused ones closed at once, logged once
 * per address per interval), and USERAUTH_REQUESTs are capped per connection. After sign-in,
 * forwarded ports are valid TCP ports and bounded per tunnel.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encode } from '../../sim/cira-apf.js';
import { RawDevice, startCiraServer, uuidOf, type TestCiraServer } from './cira-test-kit.js';
import { until } from '../../helpers/poll.js';

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};
const field = (bytes: Buffer | string) => {
  const b = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  return Buffer.concat([u32(b.length), b]);
};
const userauthNone = (user: string) => Buffer.concat([Buffer.of(50), field(user), field('pfwd@amt.intel.com'), field('none')]);
const AUTH = 'auth@amt.intel.com';

describe('cira server: bounds before sign-in', () => {
  let cira: TestCiraServer;
  before(async () => {
    cira = await startCiraServer({ preAuth: { maxMessageBytes: 1024, maxConnectionsPerAddress: 3, maxAuthRequests: 4 }, maxForwardsPerTunnel: 4 });
  });
  after(() => cira.close());

  it('refuses a message its state does not take from the first byte, without waiting for the 1 MiB it declares', async () => {
    const device = await RawDevice.connect(cira.port, '127.0.31.1');
    device.send(encode.protocolVersion(uuidOf(31)), Buffer.concat([Buffer.of(94), u32(1), u32(1_000_000)]), Buffer.alloc(8192, 0x41));
    assert.deepEqual(await device.next((m) => m.type === 'disconnect', 3000), { type: 'disconnect', reason: 2 });
    await device.closed;
    assert.equal(cira.server.stats().bufferedBytes, 0);
  });

  it('caps a message before sign-in at preAuth.maxMessageBytes, though the type is the expected one', async () => {
    const device = await RawDevice.connect(cira.port, '127.0.31.2');
    device.send(encode.protocolVersion(uuidOf(32)), encode.serviceRequest(AUTH));
    await device.next((m) => m.type === 'service-accept');
    // A sign-in of 1,000 + 1,000 bytes of fields: each within the 1 KiB field bound, the whole above preAuth.maxMessageBytes.
    device.send(Buffer.concat([Buffer.of(50), field('u'.repeat(1000)), field('pfwd@amt.intel.com'), field('password'), Buffer.of(0)]), u32(1000));
    assert.deepEqual(await device.next((m) => m.type === 'disconnect' || m.type === 'userauth-failure', 3000), { type: 'disconnect', reason: 2 });
    await device.closed;
  });

  it('answers at most preAuth.maxAuthRequests USERAUTH_REQUESTs on a connection, then disconnects', async () => {
    const device = await RawDevice.connect(cira.port, '127.0.31.3');
    device.send(encode.protocolVersion(uuidOf(33)), encode.serviceRequest(AUTH));
    await device.next((m) => m.type === 'service-accept');
    device.send(...Array.from({ length: 200 }, () => userauthNone('nobody')));
    let failures = 0;
    for (;;) {
      const m = await device.next((x) => x.type === 'userauth-failure' || x.type === 'disconnect', 3000);
      if (m?.type !== 'userauth-failure') {
        assert.deepEqual(m, { type: 'disconnect', reason: 2 });
        break;
      }
      failures++;
    }
    assert.equal(failures, 4);
    await device.closed;
  });

  it('closes at once a connection beyond preAuth.maxConnectionsPerAddress; other addresses, and the address once one signed in, get in', async () => {
    const address = '127.0.31.4';
    const held = await Promise.all([1, 2, 3].map(() => RawDevice.connect(cira.port, address)));
    const refusedBefore = cira.server.stats().refusedConnections;
    for (let i = 0; i < 5; i++) await assert.rejects(RawDevice.connect(cira.port, address), 'a fourth connection not signed in is refused');
    assert.equal(cira.server.stats().refusedConnections - refusedBefore, 5);
    const elsewhere = await RawDevice.connect(cira.port, '127.0.31.5');
    await held[0]!.handshake(uuidOf(34));
    const again = await RawDevice.connect(cira.port, address);
    assert.equal((await again.signIn(uuidOf(35)))?.type, 'userauth-success', 'room again once one signed in');
    const refusedLines = cira.logs.filter((line) => line.includes('cira connection refused before sign-in') && line.includes(address));
    assert.equal(refusedLines.length, 1, 'one line for the address in this interval, the rest counted for its summary');
    for (const device of [...held, elsewhere, again]) device.destroy();
    await until('every unauthenticated connection released', () => cira.server.stats().unauthenticated === 0, 3000);
  });

  it('refuses forwards of ports outside 1..65535 and beyond maxForwardsPerTunnel, and ends a tunnel that keeps asking', async () => {
    const device = await RawDevice.connect(cira.port, '127.0.31.6');
    await device.handshake(uuidOf(36), [16992, 16993, 623]);
    const forward = async (port: number) => {
      device.send(encode.tcpipForward(port));
      return (await device.next((m) => m.type === 'request-success' || m.type === 'request-failure' || m.type === 'disconnect', 3000))?.type;
    };
    assert.equal(await forward(70000), 'request-failure');
    assert.equal(await forward(0), 'request-failure');
    assert.equal(await forward(664), 'request-success', 'the fourth port');
    assert.equal(await forward(16992), 'request-success', 'a port forwarded already');
    assert.equal(await forward(5900), 'request-failure', 'a fifth port');
    await until('tunnel up', () => cira.server.service.connection(uuidOf(36)) !== undefined, 3000);
    assert.deepEqual(cira.server.service.connection(uuidOf(36))!.forwardedPorts.sort((x, y) => x - y), [623, 664, 16992, 16993]);
    device.send(...Array.from({ length: 10 }, (_, i) => encode.tcpipForward(20000 + i)));
    assert.equal((await device.next((m) => m.type === 'disconnect', 3000))?.type, 'disconnect', 'more refusals than maxForwardsPerTunnel end the tunnel');
    await device.closed;
  });
});

describe('cira server: the total bound of connections not signed in', () => {
  let cira: TestCiraServer;
  before(async () => {
    cira = await startCiraServer({ preAuth: { maxConnections: 3 } });
  });
  after(() => cira.close());

  it('closes at once a connection beyond preAuth.maxConnections, whatever its address', async () => {
    const held = await Promise.all([1, 2, 3].map((n) => RawDevice.connect(cira.port, `127.0.32.${n}`)));
    await assert.rejects(RawDevice.connect(cira.port, '127.0.32.9'));
    assert.equal(cira.server.stats().unauthenticated, 3);
    held[0]!.destroy();
    await until('the closed one released', () => cira.server.stats().unauthenticated === 2, 3000);
    const next = await RawDevice.connect(cira.port, '127.0.32.9');
    assert.equal((await next.signIn(uuidOf(40)))?.type, 'userauth-success');
    for (const device of [...held, next]) device.destroy();
  });
});
