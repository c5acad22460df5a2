/**
 * The plain APF listener behind HAProxy (`tls.terminator: "haproxy"`), driven by real TCP and unix
 * socket clients that write the PROXY v2 header HAProxy would: the header's source is the tunnel's
 * address (in the connection list and for the sign-in throttle), anything without a valid header
 * is closed at once, and a configuration that would expose the listener is refused.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { connect as netConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encode } from '../../sim/cira-apf.js';
import { ciraConfig, RawDevice, startCiraServer, uuidOf, type TestCiraServer } from './cira-test-kit.js';
import { proxyV2Header } from './proxy-v2-encode.js';
import { planListener } from '../../../plugins/cira/server/listener-plan.js';
import { until } from '../../helpers/poll.js';

const connected = (options: { port: number } | { path: string }): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const socket = 'path' in options ? netConnect({ path: options.path }) : netConnect({ host: '127.0.0.1', port: options.port });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });

/** ms until the server closed the socket, or null if it stayed open `waitMs`. */
const closedWithin = (socket: Socket, waitMs: number): Promise<number | null> =>
  new Promise((resolve) => {
    const started = performance.now();
    const timer = setTimeout(() => resolve(null), waitMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(performance.now() - started);
    });
  });

describe('cira listener behind HAProxy (PROXY v2, plain APF)', () => {
  let cira: TestCiraServer;

  before(async () => {
    cira = await startCiraServer({
      tls: { terminator: 'haproxy' },
      forwardSettleMs: 20,
      authTimeoutSeconds: 1,
      authThrottle: { freeFailures: 1, delayStepMs: 600 },
    });
  });
  after(() => cira.close());

  it('binds 127.0.0.1 by default', () => {
    assert.deepEqual(cira.server.plan, { kind: 'proxy-v2', target: { host: '127.0.0.1', port: 0 }, sources: [] });
    assert.equal(cira.server.service.address()?.host, '127.0.0.1');
  });

  it("lists the tunnel under the header's source address, not the proxy's", async () => {
    const socket = await connected({ port: cira.port });
    socket.write(proxyV2Header({ source: '127.66.0.7', sourcePort: 50007 }));
    const device = RawDevice.over(socket);
    await device.handshake(uuidOf(700));
    await until('tunnel up', () => cira.server.service.connection(uuidOf(700)) !== undefined, 3000);
    const listed = cira.server.service.connection(uuidOf(700))!;
    assert.deepEqual([listed.remoteAddress, listed.remotePort], ['127.66.0.7', 50007]);
    device.send(encode.keepAliveRequest(9));
    assert.deepEqual(await device.next((m) => m.type === 'keepalive-reply'), { type: 'keepalive-reply', cookie: 9 });
    device.destroy();
  });

  it('takes the header in pieces and APF bytes in the same chunk as the header', async () => {
    const socket = await connected({ port: cira.port });
    const header = proxyV2Header({ source: '127.66.0.8', sourcePort: 50008, tlvs: [{ type: 0x05, value: Buffer.from('req-1') }] });
    for (const byte of header.subarray(0, 20)) {
      socket.write(Buffer.from([byte]));
      await new Promise((resolve) => setImmediate(resolve));
    }
    socket.write(Buffer.concat([header.subarray(20), encode.protocolVersion(uuidOf(701)), encode.serviceRequest('auth@amt.intel.com')]));
    const device = RawDevice.over(socket);
    assert.equal((await device.next((m) => m.type === 'service-accept'))?.type, 'service-accept');
    device.destroy();
  });

  it("slows down failed sign-ins per device address from the header, not per HAProxy's address", async () => {
    const attempt = async (source: string, password: string) => {
      const socket = await connected({ port: cira.port });
      socket.write(proxyV2Header({ source, sourcePort: 40000 }));
      const device = RawDevice.over(socket);
      const started = performance.now();
      const answer = await device.signIn(uuidOf(702), 'mps-user', password);
      device.destroy();
      return { answer: answer?.type, ms: performance.now() - started };
    };
    await attempt('127.66.0.20', 'wrong-1');
    await attempt('127.66.0.20', 'wrong-2');
    const slowed = await attempt('127.66.0.20', 'wrong-3');
    assert.equal(slowed.answer, 'userauth-failure');
    assert.ok(slowed.ms >= 580, `third failure from 127.66.0.20 answered after ${Math.round(slowed.ms)} ms`);
    const other = await attempt('127.66.0.21', 'wrong-1');
    assert.ok(other.ms < 580, `another device address behind the same proxy is not slowed (${Math.round(other.ms)} ms)`);
    assert.ok(cira.logs.some((line) => line.includes('"remoteAddress":"127.66.0.20"')), 'the device address is logged');
  });

  const withoutHeader: Array<[string, Buffer]> = [
    ['APF straight away', encode.protocolVersion(uuidOf(703))],
    ['a TLS ClientHello (HAProxy in TCP mode without ssl on its bind)', Buffer.from([22, 3, 1, 0, 200, 1])],
    ['a PROXY v1 text header', Buffer.from('PROXY TCP4 127.66.0.30 127.0.0.1 5000 4433\r\n')],
    ['a LOCAL header (no device address)', proxyV2Header({ source: '127.66.0.31', sourcePort: 1, command: 0 })],
  ];
  for (const [what, bytes] of withoutHeader) {
    it(`closes at once a connection without a valid PROXY v2 header: ${what}`, async () => {
      const before = cira.server.stats().proxyHeaderErrors;
      const socket = await connected({ port: cira.port });
      const closing = closedWithin(socket, 3000);
      socket.write(bytes);
      const ms = await closing;
      assert.ok(ms !== null && ms < 500, `closed after ${ms === null ? 'more than 3,000' : Math.round(ms)} ms`);
      assert.equal(cira.server.stats().proxyHeaderErrors, before + 1);
      assert.equal(cira.server.stats().tunnels, cira.server.service.connections().length, 'no tunnel was created for it');
    });
  }

  it('closes a connection that sends nothing within the auth timeout', async () => {
    const socket = await connected({ port: cira.port });
    const ms = await closedWithin(socket, 3000);
    assert.ok(ms !== null && ms >= 900 && ms < 2000, `closed after ${ms} ms (auth timeout 1 s)`);
  });
});

describe('cira listener behind HAProxy: connections not signed in, per device address', () => {
  let cira: TestCiraServer;
  before(async () => {
    cira = await startCiraServer({ tls: { terminator: 'haproxy' }, forwardSettleMs: 20, preAuth: { maxConnectionsPerAddress: 2 } });
  });
  after(() => cira.close());

  const fromSource = async (source: string, port: number) => {
    const socket = await connected({ port: cira.port });
    socket.write(proxyV2Header({ source, sourcePort: port }));
    return socket;
  };

  it("bounds them per the header's source address: every connection comes from HAProxy's, yet one device address cannot crowd out the others", async () => {
    const held = [await fromSource('127.66.1.1', 51001), await fromSource('127.66.1.1', 51002)];
    await until('two held', () => cira.server.stats().unauthenticated === 2, 3000);
    const refusedBefore = cira.server.stats().refusedConnections;
    const third = await fromSource('127.66.1.1', 51003);
    assert.notEqual(await closedWithin(third, 3000), null, 'a third from the same device address is closed');
    assert.equal(cira.server.stats().refusedConnections - refusedBefore, 1);
    const other = RawDevice.over(await fromSource('127.66.1.2', 51004));
    assert.equal((await other.signIn(uuidOf(720)))?.type, 'userauth-success', 'another device address gets in through the same proxy');
    for (const socket of held) socket.destroy();
    other.destroy();
    await until('every connection released', () => cira.server.stats().unauthenticated === 0, 3000);
  });
});

describe('cira listener behind HAProxy on a unix socket', () => {
  let dir: string;
  let cira: TestCiraServer;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'amtgw-cira-sock-'));
    cira = await startCiraServer({ tls: { terminator: 'haproxy' }, socketPath: join(dir, 'cira.sock'), forwardSettleMs: 20 });
  });
  after(async () => {
    await cira.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('listens on the socket, owner and group only, and carries a tunnel with the header address', async () => {
    const path = join(dir, 'cira.sock');
    assert.equal((await stat(path)).mode & 0o777, 0o660);
    const socket = await connected({ path });
    socket.write(proxyV2Header({ source: '127.66.0.40', sourcePort: 50040 }));
    const device = RawDevice.over(socket);
    await device.handshake(uuidOf(740));
    await until('tunnel up', () => cira.server.service.connection(uuidOf(740))?.remoteAddress === '127.66.0.40', 3000);
    device.destroy();
  });

  it('replaces a stale socket file left by a crash, and refuses to steal a live one', async () => {
    const stalePath = join(dir, 'stale.sock');
    const first = await startCiraServer({ tls: { terminator: 'haproxy' }, socketPath: stalePath });
    // A second server on the same live socket must fail, not unlink the first one's.
    await assert.rejects(startCiraServer({ tls: { terminator: 'haproxy' }, socketPath: stalePath }), /EADDRINUSE/);
    const held = await connected({ path: stalePath });
    held.destroy();
    await first.close();
    // A gateway killed with SIGKILL leaves its socket file behind.
    const killed = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(stalePath)}, () => console.log('up'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => killed.stdout!.once('data', resolve));
    killed.kill('SIGKILL');
    await new Promise((resolve) => killed.once('exit', resolve));
    assert.ok((await stat(stalePath)).isSocket(), 'the stale file is there');
    const second = await startCiraServer({ tls: { terminator: 'haproxy' }, socketPath: stalePath });
    const socket = await connected({ path: stalePath });
    socket.destroy();
    await second.close();
  });
});

describe('cira listener plan', () => {
  it('refuses to expose the plain listener: a non-loopback host, host and socketPath together, a unix socket without HAProxy', () => {
    const plan = (overrides: Record<string, unknown>) => () => planListener(ciraConfig(overrides), '0.0.0.0');
    assert.throws(plan({ tls: { terminator: 'haproxy' }, host: '0.0.0.0' }), /plugins\.cira\.options\.host: .*loopback/);
    assert.throws(plan({ tls: { terminator: 'haproxy' }, host: '192.0.2.1' }), /loopback/);
    assert.throws(plan({ tls: { terminator: 'haproxy' }, host: '::' }), /loopback/);
    assert.throws(plan({ tls: { terminator: 'haproxy' }, host: 'localhost' }), /loopback/);
    assert.throws(plan({ tls: { terminator: 'haproxy' }, host: '127.0.0.1', socketPath: '/tmp/x.sock' }), /not both/);
    assert.throws(plan({ socketPath: '/tmp/x.sock' }), /socketPath: .*haproxy/);
  });

  it("binds HAProxy's listener to 127.0.0.1 (not the main listener's 0.0.0.0) unless told another loopback address", () => {
    assert.deepEqual(planListener(ciraConfig({ tls: { terminator: 'haproxy' }, port: 4434 }), '0.0.0.0'), { kind: 'proxy-v2', target: { host: '127.0.0.1', port: 4434 }, sources: [] });
    assert.deepEqual(planListener(ciraConfig({ tls: { terminator: 'haproxy' }, host: '127.9.0.1' }), '0.0.0.0').target, { host: '127.9.0.1', port: 0 });
    assert.deepEqual(planListener(ciraConfig({ tls: { terminator: 'haproxy' }, host: '::1' }), '0.0.0.0').target, { host: '::1', port: 0 });
    assert.deepEqual(planListener(ciraConfig({}), '0.0.0.0'), { kind: 'tls', target: { host: '0.0.0.0', port: 0 } });
  });
});

describe('cira listener behind a cluster\'s HAProxy on another host (tls.proxySources)', () => {
  let cira: TestCiraServer;
  before(async () => {
    cira = await startCiraServer({ tls: { terminator: 'haproxy', proxySources: ['127.88.0.2/32'] }, forwardSettleMs: 20, authTimeoutSeconds: 2 });
  });
  after(() => cira.close());

  it('may bind a network address only when the HAProxy hosts are named, and refuses a malformed block', () => {
    const plan = planListener(ciraConfig({ tls: { terminator: 'haproxy', proxySources: ['10.0.0.0/24'] }, host: '0.0.0.0' }), '0.0.0.0');
    assert.equal(plan.kind, 'proxy-v2');
    assert.deepEqual(plan.target, { host: '0.0.0.0', port: 0 });
    assert.throws(() => planListener(ciraConfig({ tls: { terminator: 'haproxy', proxySources: ['10.0.0.0/33'] }, host: '0.0.0.0' }), '0.0.0.0'), /proxySources: "10\.0\.0\.0\/33"/);
  });

  it('closes a connection from an address outside proxySources before reading a byte, and takes one from HAProxy\'s', async () => {
    const from = (localAddress: string) =>
      new Promise<Socket>((resolve, reject) => {
        const socket = netConnect({ host: '127.0.0.1', port: cira.port, localAddress });
        socket.once('connect', () => resolve(socket));
        socket.once('error', reject);
      });
    const stranger = await from('127.88.0.3');
    stranger.write(proxyV2Header({ source: '127.66.0.9', sourcePort: 50009 }));
    assert.notEqual(await closedWithin(stranger, 1000), null, 'a stranger is closed at once');
    const haproxy = await from('127.88.0.2');
    haproxy.write(proxyV2Header({ source: '127.66.0.10', sourcePort: 50010 }));
    const device = RawDevice.over(haproxy);
    await device.handshake(uuidOf(710));
    await until('the tunnel is listed', () => cira.server.service.connections().some((c) => c.remoteAddress === '127.66.0.10'), 5000);
    haproxy.destroy();
  });
});
