/**
 * The plain APF listener behind HAProxy (`tls.terminator: "haproxy"`), driven by real TCP and unix
 * socket clients that write the PROXY v2 header HAProxy would: the header's source is the tunnel's
 * address (in the connection list and for the sign-in throttle), anything without a valid header
 * is closed at once, and a configuration that would expose the listener is refused.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { connect as netConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encode } from '../../sim/cira-apf.js';
import { ciraConfig, RawDevice, startCiraServer, uuidOf, type TestCiraServer } from './cira-test-kit.js';
import { proxyV2Header } from './proxy-v2-encode.js';
import { planListener } from '../../../plugins/cira/server/listener-plan.js';
import { until } from '../../helpers/poll.js';

const connected = (options: { port: number; from?: string } | { path: string }): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const socket = 'path' in options ? netConnect({ path: options.path }) : netConnect({ host: '127.0.0.1', port: options.port, ...(options.from ? { localAddress: options.from } : {}) });
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
      proxySources: ['127.0.0.1'],
      forwardSettleMs: 20,
      authTimeoutSeconds: 1,
      authThrottle: { freeFailures: 1, delayStepMs: 600 },
    });
  });
  after(() => cira.close());

  it('binds 127.0.0.1 by default', () => {
    assert.deepEqual(cira.server.plan, { kind: 'proxy-v2', target: { host: '127.0.0.1', port: 0 }, admission: { sources: ['127.0.0.1'] } });
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
    cira = await startCiraServer({ tls: { terminator: 'haproxy' }, proxySources: ['127.0.0.1'], forwardSettleMs: 20, preAuth: { maxConnectionsPerAddress: 2 } });
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

describe('cira listener behind HAProxy: PROXY headers only from the configured proxy sources', () => {
  let cira: TestCiraServer;
  before(async () => {
    // HAProxy connects from 127.0.0.2 (`source 127.0.0.2` on its server line); anything else is no proxy.
    cira = await startCiraServer({ tls: { terminator: 'haproxy' }, proxySources: ['127.0.0.2'], forwardSettleMs: 20, authThrottle: { freeFailures: 0, delayStepMs: 400 } });
  });
  after(() => cira.close());

  it('closes at once, unread, a connection from another address sending its own PROXY header; the proxy source gets in', async () => {
    const before = cira.server.stats();
    const impostor = await connected({ port: cira.port, from: '127.0.0.1' });
    const closing = closedWithin(impostor, 3000);
    impostor.write(proxyV2Header({ source: '127.66.2.1', sourcePort: 50100 }));
    const ms = await closing;
    assert.ok(ms !== null && ms < 500, `closed after ${ms === null ? 'more than 3,000' : Math.round(ms)} ms`);
    assert.equal(cira.server.stats().refusedConnections - before.refusedConnections, 1, 'counted as refused');
    assert.ok(cira.logs.some((l) => l.includes('not a configured proxy source')), 'logged with the reason');
    const proxy = RawDevice.over(await (async () => {
      const socket = await connected({ port: cira.port, from: '127.0.0.2' });
      socket.write(proxyV2Header({ source: '127.66.2.2', sourcePort: 50101 }));
      return socket;
    })());
    await proxy.handshake(uuidOf(760));
    await until('tunnel up', () => cira.server.service.connection(uuidOf(760))?.remoteAddress === '127.66.2.2', 3000);
    proxy.destroy();
  });

  it('gives a client that is no proxy no fresh throttle bucket per claimed address: its guesses never reach the password check', async () => {
    for (let i = 0; i < 5; i++) {
      const socket = await connected({ port: cira.port, from: '127.0.0.3' });
      const closing = closedWithin(socket, 3000);
      socket.write(proxyV2Header({ source: `127.66.3.${i + 1}`, sourcePort: 50200 + i }));
      assert.notEqual(await closing, null, `claim ${i + 1} closed`);
    }
    assert.ok(!cira.logs.some((l) => l.includes('127.66.3.')), 'no claimed address reached admission or sign-in');
  });
});

/** A group that stands for HAProxy's (daemon, gid 1), and a user outside it. */
const HAPROXY_GID = 1;
const NOBODY = 65534;
const NOBODY_GID = 65534;

/** Connects to a unix socket as another user and group (root only): `connected` or the error code. */
function connectAs(path: string, uid: number, gid: number): Promise<string> {
  const script = `const s = require('node:net').connect(${JSON.stringify(path)}); s.on('connect', () => { console.log('connected'); s.destroy(); }); s.on('error', (e) => console.log(e.code));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { uid, gid, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', reject);
    child.once('exit', () => resolve(out.trim()));
  });
}

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

  it('lets only its owner and socketGroup connect: another user is refused by the socket file itself', { skip: process.getuid?.() !== 0 && 'needs root, to connect as other users' }, async () => {
    const groupDir = await mkdtemp(join(tmpdir(), 'amtgw-cira-group-'));
    await chmod(groupDir, 0o755); // searchable by all: the socket's own mode must be what refuses
    const path = join(groupDir, 'cira.sock');
    const grouped = await startCiraServer({ tls: { terminator: 'haproxy' }, socketPath: path, socketGroup: String(HAPROXY_GID) });
    try {
      const info = await stat(path);
      assert.deepEqual([info.mode & 0o777, info.gid], [0o660, HAPROXY_GID]);
      assert.equal(await connectAs(path, NOBODY, NOBODY_GID), 'EACCES', 'a user outside the group cannot connect');
      assert.equal(await connectAs(path, NOBODY, HAPROXY_GID), 'connected', 'a member of socketGroup (HAProxy) can');
    } finally {
      await grouped.close();
      await rm(groupDir, { recursive: true, force: true });
    }
  });

  it('refuses an unknown socketGroup at start, naming the option', async () => {
    await assert.rejects(startCiraServer({ tls: { terminator: 'haproxy' }, socketPath: join(dir, 'g.sock'), socketGroup: 'no-such-group-x' }), /plugins\.cira\.options\.socketGroup: no group 'no-such-group-x'/);
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
  it('refuses a loopback port behind HAProxy without proxySources: any local process could claim any address', () => {
    assert.throws(() => planListener(ciraConfig({ tls: { terminator: 'haproxy' } }), '0.0.0.0'), /plugins\.cira\.options\.proxySources: .*socketPath/);
    assert.throws(() => planListener(ciraConfig({ tls: { terminator: 'haproxy' }, proxySources: ['0.0.0.0/0'] }), '0.0.0.0'), /proxySources/);
    assert.throws(() => ciraConfig({ tls: { terminator: 'haproxy' }, proxySources: ['not-an-address'] }));
  });

  it('refuses to expose the plain listener: a non-loopback host, host and socketPath together, a unix socket without HAProxy', () => {
    const plan = (overrides: Record<string, unknown>) => () => planListener(ciraConfig({ proxySources: ['127.0.0.1'], ...overrides }), '0.0.0.0');
    assert.throws(plan({ tls: { terminator: 'haproxy' }, host: '0.0.0.0' }), /plugins\.cira\.options\.host: .*loopback/);
    assert.throws(plan({ tls: { terminator: 'haproxy' }, host: '192.0.2.1' }), /loopback/);
    assert.throws(plan({ tls: { terminator: 'haproxy' }, host: '::' }), /loopback/);
    assert.throws(plan({ tls: { terminator: 'haproxy' }, host: 'localhost' }), /loopback/);
    assert.throws(plan({ tls: { terminator: 'haproxy' }, host: '127.0.0.1', socketPath: '/tmp/x.sock' }), /not both/);
    assert.throws(plan({ socketPath: '/tmp/x.sock' }), /socketPath: .*haproxy/);
  });

  it("binds HAProxy's listener to 127.0.0.1 (not the main listener's 0.0.0.0) unless told another loopback address", () => {
    const proxySources = ['127.0.0.2'];
    assert.deepEqual(planListener(ciraConfig({ tls: { terminator: 'haproxy' }, proxySources, port: 4434 }), '0.0.0.0'), { kind: 'proxy-v2', target: { host: '127.0.0.1', port: 4434 }, admission: { sources: proxySources } });
    assert.deepEqual(planListener(ciraConfig({ tls: { terminator: 'haproxy' }, proxySources, host: '127.9.0.1' }), '0.0.0.0').target, { host: '127.9.0.1', port: 0 });
    assert.deepEqual(planListener(ciraConfig({ tls: { terminator: 'haproxy' }, proxySources, host: '::1' }), '0.0.0.0').target, { host: '::1', port: 0 });
    assert.deepEqual(planListener(ciraConfig({}), '0.0.0.0'), { kind: 'tls', target: { host: '0.0.0.0', port: 0 } });
  });
});
