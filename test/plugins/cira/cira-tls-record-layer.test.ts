import assert from 'node:assert/strict';
import { connect as netConnect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Duplex } from 'node:stream';
import { connect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { encode, type ServerMessage } from '../../sim/cira-apf.js';
import { MPS_PASSWORD, MPS_USER, RawDevice, startCiraServer, until, uuidOf, type TestCiraServer } from './cira-test-kit.js';

type Of<T extends ServerMessage['type']> = Extract<ServerMessage, { type: T }>;
const is =
  <T extends ServerMessage['type']>(type: T) =>
  (m: ServerMessage): m is Of<T> =>
    m.type === type;

/** A TCP connection whose next written chunk can be altered on the way, under a TLS client. */
class TamperingPipe extends Duplex {
  /** Which byte of the next written chunk to flip (negative: from the end), and with what. */
  flipNext: { at: number; mask: number } | null = null;
  constructor(readonly tcp: Socket) {
    super();
    tcp.on('data', (chunk: Buffer) => this.push(chunk));
    tcp.on('end', () => this.push(null));
    tcp.on('close', () => this.destroy());
    tcp.on('error', () => undefined);
  }
  override _read(): void {}
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.flipNext) {
      const { at, mask } = this.flipNext;
      this.flipNext = null;
      chunk = Buffer.from(chunk);
      const index = at < 0 ? chunk.length + at : at;
      chunk[index] = chunk[index]! ^ mask;
    }
    this.tcp.write(chunk, callback);
  }
  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.tcp.destroy();
    callback(error);
  }
}

describe('cira server: TLS record layer after the handshake', () => {
  let cira: TestCiraServer;
  let next = 1;

  before(async () => {
    cira = await startCiraServer({ forwardSettleMs: 20, channelWindowBytes: 200_000 });
  });
  after(() => cira.close());

  async function up(tls: Pick<ConnectionOptions, 'minVersion' | 'maxVersion' | 'ciphers'>): Promise<{ device: RawDevice; id: string; n: number }> {
    const n = next++;
    const device = await RawDevice.connect(cira.port, `127.0.23.${n}`, tls);
    await device.handshake(uuidOf(300 + n));
    await until(() => cira.server.service.connection(uuidOf(300 + n)) !== undefined, 3000, 'tunnel up');
    return { device, id: uuidOf(300 + n), n };
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
    await until(() => Buffer.concat(received).length >= fromDevice.length, 3000, 'data from the device');
    assert.deepEqual(Buffer.concat(received), fromDevice);
    channel.destroy();
  }

  /**
   * A TLS 1.2 device from `localAddress` sends `first`, then `altered` with one byte of its record
   * changed on the way (`flip`); resolves, once the server has closed it, with the alerts it got.
   */
  async function alertsAfterAltering(localAddress: string, first: Buffer[], flip: { at: number; mask: number }, altered: Buffer): Promise<string[]> {
    const pipe = new TamperingPipe(netConnect({ host: '127.0.0.1', port: cira.port, localAddress }));
    const tls: TLSSocket = await new Promise((resolve, reject) => {
      const socket = connect({ socket: pipe, rejectUnauthorized: false, maxVersion: 'TLSv1.2' }, () => resolve(socket));
      socket.once('error', reject);
    });
    const alerts: string[] = [];
    tls.on('error', (err: NodeJS.ErrnoException) => alerts.push(err.code ?? err.message));
    const closed = new Promise<void>((resolve) => tls.once('close', () => resolve()));
    for (const message of first) tls.write(message);
    pipe.flipNext = flip;
    tls.write(altered);
    await closed;
    return alerts;
  }

  for (const ciphers of ['ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES256-GCM-SHA384', 'ECDHE-RSA-CHACHA20-POLY1305']) {
    it(`takes the record layer over for TLS 1.2 ${ciphers} and carries messages larger than a record both ways`, async () => {
      const before = cira.server.stats().offloaded;
      const { device, id } = await up({ maxVersion: 'TLSv1.2', ciphers });
      assert.equal(device.socket.getCipher().name, ciphers);
      assert.equal(cira.server.stats().offloaded, before + 1, 'the record layer was taken over');
      await exchange(device, id);
      device.send(encode.keepAliveRequest(4711));
      const reply = (await device.next(is('keepalive-reply'))) as Of<'keepalive-reply'>;
      assert.equal(reply.cookie, 4711);
      device.destroy();
    });
  }

  it("keeps Node's TLS for TLS 1.3 and for a CBC suite, and both work the same", async () => {
    const before = cira.server.stats().offloaded;
    for (const tls of [{ minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3' }, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-SHA256' }] as const) {
      const { device, id } = await up(tls);
      await exchange(device, id);
      device.destroy();
    }
    assert.equal(cira.server.stats().offloaded, before, 'neither was taken over');
  });

  it('ends a tunnel on close_notify from the device', async () => {
    const { device, id } = await up({ maxVersion: 'TLSv1.2' });
    device.socket.end();
    await until(() => cira.server.service.connection(id) === undefined, 3000, 'tunnel down');
    await device.closed;
  });

  it('closes only the tunnel whose record does not authenticate, with an alert, and keeps the others', async () => {
    const other = await up({ maxVersion: 'TLSv1.2' });
    const errorsBefore = cira.server.stats().tlsErrors;
    const forged = await alertsAfterAltering('127.0.23.200', [encode.protocolVersion(uuidOf(399))], { at: -1, mask: 0x01 }, encode.serviceRequest('auth@amt.intel.com'));
    assert.deepEqual(forged, ['ERR_SSL_SSLV3_ALERT_BAD_RECORD_MAC'], 'the device got bad_record_mac');
    assert.equal(cira.server.stats().tlsErrors, errorsBefore + 1);
    assert.ok(cira.logs.some((line) => line.includes('cira TLS record refused')));

    // A record whose header names another TLS version (0x0301): refused, although its AEAD tag is valid.
    const otherVersion = await alertsAfterAltering('127.0.23.201', [], { at: 2, mask: 0x02 }, encode.protocolVersion(uuidOf(398)));
    assert.deepEqual(otherVersion, ['ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION'], 'the device got protocol_version');
    assert.ok(cira.logs.some((line) => line.includes('TLS record of version 0x301')));
    other.device.send(encode.keepAliveRequest(1));
    assert.equal(((await other.device.next(is('keepalive-reply'))) as Of<'keepalive-reply'>).cookie, 1, 'the other tunnel still answers');
    other.device.destroy();
  });

  it('refuses renegotiation and a record longer than TLS allows, closing that tunnel only', async () => {
    const errorsBefore = cira.server.stats().tlsErrors;
    const renegotiating = await up({ maxVersion: 'TLSv1.2' });
    assert.equal(renegotiating.device.socket.renegotiate({}, () => undefined), true, 'the client asked to renegotiate');
    await renegotiating.device.closed;
    await until(() => cira.server.service.connection(renegotiating.id) === undefined, 3000, 'renegotiating tunnel down');
    assert.ok(cira.logs.some((line) => line.includes('unexpected TLS record of type 22 after the handshake')));

    const n = next++;
    const tcp = netConnect({ host: '127.0.0.1', port: cira.port, localAddress: `127.0.23.${n}` });
    const device: TLSSocket = await new Promise((resolve, reject) => {
      const socket = connect({ socket: tcp, rejectUnauthorized: false, maxVersion: 'TLSv1.2' }, () => resolve(socket));
      socket.once('error', reject);
    });
    device.on('error', () => undefined);
    device.write(Buffer.concat([encode.protocolVersion(uuidOf(300 + n)), encode.serviceRequest('auth@amt.intel.com'), encode.userauthPassword(MPS_USER, MPS_PASSWORD)]));
    await new Promise((resolve) => device.once('data', resolve));
    const closed = new Promise<void>((resolve) => tcp.once('close', () => resolve()));
    tcp.write(Buffer.from([23, 3, 3, 0xff, 0xff]));
    await closed;
    assert.equal(cira.server.stats().tlsErrors, errorsBefore + 2);
    assert.ok(cira.logs.some((line) => line.includes('TLS record of 65535 bytes exceeds')));

    const still = await up({ maxVersion: 'TLSv1.2' });
    still.device.send(encode.keepAliveRequest(2));
    assert.equal(((await still.device.next(is('keepalive-reply'))) as Of<'keepalive-reply'>).cookie, 2);
    still.device.destroy();
  });
});
