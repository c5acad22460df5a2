/**
 * The CIRA listener on Node's TLS: every suite a device may negotiate carries APF both ways, a
 * fatal TLS error ends that tunnel at once (not at the keep-alive timeout), and a first record that
 * is not a TLS handshake is refused at once (not at the handshake limit).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect as netConnect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Duplex } from 'node:stream';
import { connect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import type { CiraTunnelEvent } from '../../../plugins/cira/api.js';
import { encode, type ServerMessage } from '../../sim/cira-apf.js';
import { RawDevice, startCiraServer, uuidOf, type TestCiraServer } from './cira-test-kit.js';
import { until } from '../../helpers/poll.js';

type Of<T extends ServerMessage['type']> = Extract<ServerMessage, { type: T }>;
const is =
  <T extends ServerMessage['type']>(type: T) =>
  (m: ServerMessage): m is Of<T> =>
    m.type === type;
type TlsChoice = Pick<ConnectionOptions, 'minVersion' | 'maxVersion' | 'ciphers'>;

const SUITES: Array<{ name: string; tls: TlsChoice }> = [
  { name: 'TLS 1.2 AES-128-GCM', tls: { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' } },
  { name: 'TLS 1.2 ChaCha20-Poly1305', tls: { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-CHACHA20-POLY1305' } },
  { name: 'TLS 1.2 AES-128-CBC-SHA256', tls: { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-SHA256' } },
  { name: 'TLS 1.3', tls: { minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3' } },
];

/** A TCP connection under a TLS client whose next written chunk can have one byte flipped on the way. */
class TamperingPipe extends Duplex {
  flipLastByteOfNext = false;
  constructor(readonly tcp: Socket) {
    super();
    tcp.on('data', (chunk: Buffer) => this.push(chunk));
    tcp.on('end', () => this.push(null));
    tcp.on('close', () => this.destroy());
    tcp.on('error', () => undefined);
  }
  override _read(): void {}
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.flipLastByteOfNext) {
      this.flipLastByteOfNext = false;
      chunk = Buffer.from(chunk);
      chunk[chunk.length - 1] = chunk[chunk.length - 1]! ^ 0x01;
    }
    this.tcp.write(chunk, callback);
  }
  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.tcp.destroy();
    callback(error);
  }
}

/** Connects raw TCP from `localAddress`, writes `bytes`, resolves with ms until the server closed (or null after `waitMs`) and what it sent. */
async function sendRaw(port: number, localAddress: string, bytes: Buffer, waitMs = 3000): Promise<{ closedAfterMs: number | null; received: Buffer }> {
  const socket = netConnect({ host: '127.0.0.1', port, localAddress });
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  const started = performance.now();
  socket.write(bytes);
  const closedAfterMs = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), waitMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(performance.now() - started);
    });
  });
  socket.destroy();
  return { closedAfterMs, received: Buffer.concat(received) };
}

/** An SSLv2-format ClientHello offering TLS 1.0, as very old clients open. */
function sslv2ClientHello(): Buffer {
  const suites = [0x00c014, 0x00c013, 0x000035, 0x00002f, 0x00000a, 0x0000ff];
  const specs = Buffer.concat(suites.map((s) => Buffer.from([s >> 16, (s >> 8) & 0xff, s & 0xff])));
  const body = Buffer.concat([Buffer.from([0x01, 0x03, 0x01, 0x00, specs.length, 0x00, 0x00, 0x00, 32]), specs, randomBytes(32)]);
  return Buffer.concat([Buffer.from([0x80 | (body.length >> 8), body.length & 0xff]), body]);
}

describe("cira server on Node's TLS", () => {
  let cira: TestCiraServer;
  const events: CiraTunnelEvent[] = [];
  let next = 1;

  before(async () => {
    // Long keep-alive and handshake limits: whatever ends a tunnel or a connection here is not them.
    cira = await startCiraServer({ forwardSettleMs: 20, channelWindowBytes: 200_000, keepAliveTimeoutSeconds: 90, keepAliveIntervalSeconds: 30, authTimeoutSeconds: 30 });
    cira.server.service.onTunnel((event) => events.push(event));
  });
  after(() => cira.close());

  async function up(tls: TlsChoice): Promise<{ device: RawDevice; id: string }> {
    const n = next++;
    const device = await RawDevice.connect(cira.port, `127.0.23.${n}`, tls);
    await device.handshake(uuidOf(300 + n));
    await until('tunnel up', () => cira.server.service.connection(uuidOf(300 + n)) !== undefined, 3000);
    return { device, id: uuidOf(300 + n) };
  }

  /** 40 KB each way through a channel: several TLS records per message in both directions. */
  async function exchange(device: RawDevice, id: string): Promise<void> {
    const opening = cira.server.service.openChannel(id, 16992);
    const open = (await device.next(is('channel-open'))) as Of<'channel-open'>;
    device.send(encode.channelOpenConfirmation(open.sender, 77, 200_000));
    const channel = await opening;
    const toDevice = Buffer.alloc(40_000, 0x5a);
    channel.write(toDevice);
    const parts: Buffer[] = [];
    while (Buffer.concat(parts).length < toDevice.length) parts.push(((await device.next(is('channel-data'))) as Of<'channel-data'>).data);
    assert.deepEqual(Buffer.concat(parts), toDevice);
    const fromDevice = Buffer.alloc(40_000);
    for (let i = 0; i < fromDevice.length; i++) fromDevice[i] = i % 251;
    const received: Buffer[] = [];
    channel.on('data', (chunk: Buffer) => received.push(chunk));
    device.send(encode.channelData(open.sender, fromDevice));
    await until('data from the device', () => Buffer.concat(received).length >= fromDevice.length, 3000);
    assert.deepEqual(Buffer.concat(received), fromDevice);
    channel.destroy();
  }

  for (const { name, tls } of SUITES) {
    it(`carries messages larger than a record both ways over ${name}`, async () => {
      const { device, id } = await up(tls);
      await exchange(device, id);
      device.send(encode.keepAliveRequest(4711));
      assert.equal(((await device.next(is('keepalive-reply'))) as Of<'keepalive-reply'>).cookie, 4711);
      device.destroy();
    });
  }

  for (const { name, tls } of SUITES) {
    it(`ends a signed-in tunnel at once when its device sends a forged record (${name}), and keeps the others`, async () => {
      const bystander = await up({ maxVersion: 'TLSv1.2' });
      const n = next++;
      const uuid = uuidOf(300 + n);
      const pipe = new TamperingPipe(netConnect({ host: '127.0.0.1', port: cira.port, localAddress: `127.0.23.${n}` }));
      const socket: TLSSocket = await new Promise((resolve, reject) => {
        const s = connect({ socket: pipe, rejectUnauthorized: false, ...tls }, () => resolve(s));
        s.once('error', reject);
      });
      const alerts: string[] = [];
      socket.on('error', (err: NodeJS.ErrnoException) => alerts.push(err.code ?? err.message));
      const device = RawDevice.over(socket);
      await device.handshake(uuid);
      await until('tunnel up', () => cira.server.service.connection(uuid) !== undefined, 3000);
      const errorsBefore = cira.server.stats().tlsErrors;

      pipe.flipLastByteOfNext = true;
      const sent = performance.now();
      device.send(encode.keepAliveRequest(1));
      await until('the tunnel announced down', () => events.some((e) => e.type === 'down' && e.connection.uuid === uuid), 2000);
      const downAfterMs = performance.now() - sent;
      assert.equal(cira.server.service.connection(uuid), undefined, 'no longer listed');
      assert.ok(downAfterMs < 1000, `down ${Math.round(downAfterMs)} ms after the forged record (keep-alive timeout 90 s)`);
      await device.closed;
      // The server closes at once; the bad_record_mac alert OpenSSL queued may or may not leave before the socket does.
      // OpenSSL 3.0 (Node 20, 22) names it SSLV3_ALERT_BAD_RECORD_MAC, 3.5 (Node 24) SSL/TLS_ALERT_BAD_RECORD_MAC.
      assert.ok(alerts.every((code) => /^ERR_SSL_(SSLV3|SSL\/TLS)_ALERT_BAD_RECORD_MAC$/.test(code)), `the device got only bad_record_mac, if anything: ${alerts.join(', ')}`);
      assert.equal(cira.server.stats().tlsErrors, errorsBefore + 1);
      assert.ok(cira.logs.some((line) => line.includes('cira TLS error; tunnel closed')));

      bystander.device.send(encode.keepAliveRequest(2));
      assert.equal(((await bystander.device.next(is('keepalive-reply'))) as Of<'keepalive-reply'>).cookie, 2, 'the other tunnel still answers');
      bystander.device.destroy();
    });
  }

  it('ends a tunnel on close_notify from the device', async () => {
    const { device, id } = await up({ maxVersion: 'TLSv1.2' });
    device.socket.end();
    await until('tunnel down', () => cira.server.service.connection(id) === undefined, 3000);
    await device.closed;
  });

  const notTls: Array<[string, Buffer]> = [
    ['an HTTP request', Buffer.from('GET / HTTP/1.1\r\nHost: gateway\r\n\r\n')],
    ['zero bytes', Buffer.alloc(64)],
    ['a TLS application-data record', Buffer.from([23, 3, 3, 0, 5, 1, 2, 3, 4, 5])],
    ['a handshake record of another protocol version', Buffer.from([22, 2, 0, 0, 5, 1, 2, 3, 4, 5])],
    ['an SSLv2-format hello (legacy mode is off)', sslv2ClientHello()],
    ['a single stray byte', Buffer.from([0x42])],
  ];
  for (const [what, bytes] of notTls) {
    it(`refuses at once a first record that is not a TLS handshake: ${what}`, async () => {
      const errorsBefore = cira.server.stats().tlsErrors;
      const { closedAfterMs, received } = await sendRaw(cira.port, `127.0.24.${next++}`, bytes);
      assert.ok(closedAfterMs !== null && closedAfterMs < 500, `closed after ${closedAfterMs === null ? 'more than 3,000' : Math.round(closedAfterMs)} ms (handshake limit 30 s)`);
      assert.equal(received.length, 0, 'nothing was answered');
      assert.equal(cira.server.stats().tlsErrors, errorsBefore + 1, 'counted');
    });
  }

  it('waits for more bytes when the first chunk is too short to judge, then refuses', async () => {
    const socket = netConnect({ host: '127.0.0.1', port: cira.port, localAddress: `127.0.24.${next++}` });
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(Buffer.from([22]));
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(socket.destroyed, false, 'one byte of a handshake record is not refused yet');
    const closed = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 500);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    socket.write(Buffer.from([0x47]));
    assert.equal(await closed, true, 'refused within 500 ms of the second byte');
    socket.destroy();
  });
});

describe('cira server in legacy mode (tls.minVersion TLSv1)', () => {
  let legacy: TestCiraServer;
  before(async () => {
    legacy = await startCiraServer({ tls: { minVersion: 'TLSv1' }, authTimeoutSeconds: 30 });
  });
  after(() => legacy.close());

  it('answers an SSLv2-format hello with a TLS ServerHello at once', async () => {
    const { closedAfterMs, received } = await sendRaw(legacy.port, '127.0.24.200', sslv2ClientHello(), 1000);
    assert.ok(received.length > 5, `answered (${received.length} bytes; closed after ${closedAfterMs ?? '-'} ms)`);
    assert.equal(received[0], 22, 'a handshake record');
    assert.equal(received[5], 2, 'a ServerHello');
  });

  it('still refuses plain bytes at once', async () => {
    const { closedAfterMs } = await sendRaw(legacy.port, '127.0.24.201', Buffer.from('GET / HTTP/1.0\r\n\r\n'));
    assert.ok(closedAfterMs !== null && closedAfterMs < 500, `closed after ${closedAfterMs} ms`);
  });
});
