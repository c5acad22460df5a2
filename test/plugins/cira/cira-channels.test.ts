import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Duplex } from 'node:stream';
import { encode, type ServerMessage } from '../../sim/cira-apf.js';
import { RawDevice, startCiraServer, uuidOf, type TestCiraServer } from './cira-test-kit.js';
import { until } from '../../helpers/poll.js';

type Of<T extends ServerMessage['type']> = Extract<ServerMessage, { type: T }>;
const is =
  <T extends ServerMessage['type']>(type: T) =>
  (m: ServerMessage): m is Of<T> =>
    m.type === type;

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};
const field = (text: string) => Buffer.concat([u32(Buffer.byteLength(text)), Buffer.from(text)]);

describe('cira server: channels as streams, windows both ways', () => {
  let cira: TestCiraServer;

  before(async () => {
    cira = await startCiraServer({ forwardSettleMs: 20, channelWindowBytes: 2048, maxChannelsPerTunnel: 2, channelOpenTimeoutMs: 500 });
  });
  after(() => cira.close());

  async function upDevice(n: number, ports = [16992]): Promise<RawDevice> {
    const device = await RawDevice.connect(cira.port, `127.0.22.${n}`);
    await device.handshake(uuidOf(200 + n), ports);
    await until('up', () => cira.server.service.connection(uuidOf(200 + n)) !== undefined, 2000);
    return device;
  }

  /** Opens a channel from the server and confirms it on the device with `window`. */
  async function openConfirmed(device: RawDevice, n: number, window: number): Promise<{ channel: Duplex; serverId: number; deviceId: number }> {
    const opening = cira.server.service.openChannel(uuidOf(200 + n), 16992);
    const open = (await device.next(is('channel-open'))) as Of<'channel-open'>;
    assert.equal(open.kind, 'forwarded-tcpip');
    assert.equal(open.port, 16992);
    assert.equal(open.window, 2048);
    const deviceId = 500 + open.sender;
    device.send(encode.channelOpenConfirmation(open.sender, deviceId, window));
    return { channel: await opening, serverId: open.sender, deviceId };
  }

  /** CHANNEL_DATA bytes the device received, until `quietMs` pass without more. */
  async function collectData(device: RawDevice, quietMs: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    for (;;) {
      try {
        const m = (await device.next(is('channel-data'), quietMs)) as Of<'channel-data'> | null;
        if (!m) break;
        parts.push(m.data);
      } catch {
        break;
      }
    }
    return Buffer.concat(parts);
  }

  it("sends no more than the device's window and resumes on WINDOW_ADJUST", async () => {
    const device = await upDevice(1);
    const { channel, serverId } = await openConfirmed(device, 1, 100);
    const payload = Buffer.alloc(1000, 0x61);
    let written = false;
    channel.write(payload, () => (written = true));
    assert.equal((await collectData(device, 200)).length, 100, 'exactly the window');
    assert.equal(written, false, 'the write waits for window');
    device.send(encode.windowAdjust(serverId + 1000, 5000));
    assert.equal((await collectData(device, 200)).length, 0, 'an adjust for another channel number gives no window');
    device.send(encode.windowAdjust(serverId, 400));
    assert.equal((await collectData(device, 200)).length, 400);
    device.send(encode.windowAdjust(serverId, 10_000));
    assert.equal((await collectData(device, 200)).length, 500);
    await until('write callback', () => written, 1000);
    device.destroy();
  });

  it('carries data back, gives window back as the reader consumes, and ends the stream on CHANNEL_CLOSE', async () => {
    const device = await upDevice(2);
    const { channel, serverId, deviceId } = await openConfirmed(device, 2, 4096);
    const received: Buffer[] = [];
    channel.on('data', (chunk: Buffer) => received.push(chunk));
    const ended = new Promise((resolve) => channel.once('end', resolve));
    device.send(encode.channelData(serverId, Buffer.alloc(700, 1)), encode.channelData(serverId, Buffer.alloc(700, 2)));
    const adjust = (await device.next(is('window-adjust'))) as Of<'window-adjust'>;
    assert.equal(adjust.recipient, deviceId);
    assert.equal(adjust.bytes, 1400, 'the consumed bytes are given back once half the window is used');
    device.send(encode.channelClose(serverId));
    const close = (await device.next(is('channel-close'))) as Of<'channel-close'>;
    assert.equal(close.recipient, deviceId, 'the server answers CHANNEL_CLOSE');
    await ended;
    assert.equal(Buffer.concat(received).length, 1400);
    await until('channel released', () => cira.server.service.connection(uuidOf(202))!.openChannels === 0, 1000);
    device.destroy();
  });

  it('reassembles a data message that arrives in many small TLS records', async () => {
    const device = await upDevice(11);
    const { channel, serverId } = await openConfirmed(device, 11, 4096);
    const payload = Buffer.from(Array.from({ length: 2000 }, (_, i) => i % 251));
    const message = encode.channelData(serverId, payload);
    const received: Buffer[] = [];
    channel.on('data', (chunk: Buffer) => received.push(chunk));
    for (let i = 0; i < message.length; i += 37) {
      device.socket.write(message.subarray(i, i + 37));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await until('all data', () => Buffer.concat(received).length === payload.length, 2000);
    assert.ok(Buffer.concat(received).equals(payload));
    device.destroy();
  });

  it('hands a data message that spans reads to the reader piece by piece, before its last byte, holding none of it', async () => {
    const device = await upDevice(12);
    const { channel, serverId } = await openConfirmed(device, 12, 4096);
    const payload = Buffer.from(Array.from({ length: 1500 }, (_, i) => i % 241));
    const message = encode.channelData(serverId, payload);
    const received: Buffer[] = [];
    channel.on('data', (chunk: Buffer) => received.push(chunk));
    device.socket.write(message.subarray(0, 9 + 600));
    await until('the first 600 bytes reach the reader', () => Buffer.concat(received).length === 600, 2000);
    assert.equal(cira.server.stats().bufferedBytes, 0, 'the tunnel keeps no partial payload');
    device.socket.write(message.subarray(9 + 600, 9 + 1100));
    await until('the next 500 bytes', () => Buffer.concat(received).length === 1100, 2000);
    device.send(Buffer.concat([message.subarray(9 + 1100), encode.keepAliveRequest(7)]));
    await device.next(is('keepalive-reply'));
    assert.ok(Buffer.concat(received).equals(payload), 'the same bytes, in order');
    device.destroy();
  });

  it('ends the tunnel when a data message that spans reads overruns the window', async () => {
    const device = await upDevice(13);
    const { serverId } = await openConfirmed(device, 13, 4096);
    const message = encode.channelData(serverId, Buffer.alloc(2049, 7));
    device.socket.write(message.subarray(0, 1000));
    await new Promise((resolve) => setTimeout(resolve, 50));
    device.socket.write(message.subarray(1000));
    await device.closed;
    assert.equal(cira.server.service.connection(uuidOf(213)), undefined);
  });

  it('closing a channel from our side expects the device\'s answer: its CLOSE and data in flight are not strays', async () => {
    const device = await upDevice(10);
    const { channel, serverId, deviceId } = await openConfirmed(device, 10, 4096);
    const strays = cira.server.stats().ignoredMessages;
    channel.destroy();
    assert.equal(((await device.next(is('channel-close'))) as Of<'channel-close'>).recipient, deviceId);
    assert.equal(cira.server.service.connection(uuidOf(210))!.openChannels, 0, 'the channel is released at once');
    device.send(encode.channelData(serverId, Buffer.from('in flight')), encode.channelClose(serverId));
    device.send(encode.keepAliveRequest(5));
    await device.next(is('keepalive-reply'));
    assert.equal(cira.server.stats().ignoredMessages, strays);
    device.send(encode.channelClose(serverId));
    device.send(encode.keepAliveRequest(6));
    await device.next(is('keepalive-reply'));
    assert.equal(cira.server.stats().ignoredMessages, strays + 1, 'a second CLOSE is a stray');
    device.destroy();
  });

  it('ends the tunnel when the device overruns the window the server gave', async () => {
    const device = await upDevice(3);
    const { serverId } = await openConfirmed(device, 3, 4096);
    device.send(encode.channelData(serverId, Buffer.alloc(2049, 7)));
    await device.closed;
    assert.equal(cira.server.service.connection(uuidOf(203)), undefined);
  });

  it('stops giving window back while the reader is paused, so a paused reader buffers a bounded amount', async () => {
    const device = await upDevice(4);
    const { channel, serverId } = await openConfirmed(device, 4, 4096);
    channel.pause();
    // The device sends 1 KiB messages within the window it was given, as long as the server gives window back.
    let window = 2048;
    let sent = 0;
    for (let rounds = 0; rounds < 100; rounds++) {
      while (window >= 1024) {
        device.send(encode.channelData(serverId, Buffer.alloc(1024, 3)));
        window -= 1024;
        sent += 1024;
      }
      const adjust = await device.next(is('window-adjust'), 300).catch(() => null);
      if (!adjust) break;
      window += (adjust as Of<'window-adjust'>).bytes;
    }
    const highWaterMark = channel.readableHighWaterMark;
    assert.ok(sent >= highWaterMark && sent <= highWaterMark + 2048 + 1024, `a paused reader took ${sent} bytes (high-water mark ${highWaterMark}, window 2048)`);
    let read = 0;
    channel.on('data', (chunk: Buffer) => (read += chunk.length));
    channel.resume();
    assert.ok(((await device.next(is('window-adjust'))) as Of<'window-adjust'>).bytes > 0, 'reading gives window back');
    await until('everything read', () => read === sent, 1000);
    device.destroy();
  });

  it('refuses ports the device does not forward, reports the device refusal, and bounds channels per tunnel', async () => {
    const device = await upDevice(5);
    await assert.rejects(cira.server.service.openChannel(uuidOf(205), 16993), { code: 'GW_ERR_CIRA_PORT_NOT_FORWARDED' });
    await assert.rejects(cira.server.service.openChannel(uuidOf(999), 16992), { code: 'GW_ERR_CIRA_NOT_CONNECTED' });
    const refused = cira.server.service.openChannel(uuidOf(205), 16992);
    const open = (await device.next(is('channel-open'))) as Of<'channel-open'>;
    device.send(encode.channelOpenFailure(open.sender, 4));
    await assert.rejects(refused, { code: 'GW_ERR_CIRA_OPEN_FAILED', reason: 4 });
    await openConfirmed(device, 5, 1000);
    await openConfirmed(device, 5, 1000);
    await assert.rejects(cira.server.service.openChannel(uuidOf(205), 16992), { code: 'GW_ERR_CIRA_CHANNEL_LIMIT' });
    device.destroy();
  });

  it('forgets a port the device cancels (REQUEST_SUCCESS without a port) and opens no channel to it', async () => {
    const device = await upDevice(9, [16992, 16993]);
    await device.next(is('keepalive-options-request'));
    const cancel = Buffer.concat([Buffer.from([80]), field('cancel-tcpip-forward'), Buffer.from([1]), field(''), u32(16992)]);
    const before = device.rawBytes.length;
    device.send(cancel);
    await until('forward cancelled', () => !cira.server.service.connection(uuidOf(209))!.forwardedPorts.includes(16992), 1000);
    await until('reply', () => device.rawBytes.length > before, 1000);
    assert.equal(device.rawBytes.slice(before), '51', 'REQUEST_SUCCESS is the type byte alone');
    await assert.rejects(cira.server.service.openChannel(uuidOf(209), 16992), { code: 'GW_ERR_CIRA_PORT_NOT_FORWARDED' });
    device.destroy();
  });

  it('times out an unconfirmed open and closes the channel when the confirmation comes late', async () => {
    const device = await upDevice(6);
    const opening = cira.server.service.openChannel(uuidOf(206), 16992);
    const open = (await device.next(is('channel-open'))) as Of<'channel-open'>;
    await assert.rejects(opening, { code: 'GW_ERR_CIRA_OPEN_TIMEOUT' });
    device.send(encode.channelOpenConfirmation(open.sender, 900, 1000));
    assert.equal(((await device.next(is('channel-close'))) as Of<'channel-close'>).recipient, 900);
    device.destroy();
  });

  it('fails open channels when the tunnel goes away', async () => {
    const device = await upDevice(7);
    const { channel } = await openConfirmed(device, 7, 1000);
    const failed = new Promise<Error>((resolve) => channel.once('error', resolve));
    device.destroy();
    assert.equal(((await failed) as Error & { code: string }).code, 'GW_ERR_CIRA_TUNNEL_CLOSED');
  });

  it('runs an HTTP exchange over a channel (node:http with createConnection)', async () => {
    const device = await upDevice(8);
    // node:http takes the socket synchronously from createConnection: open the channel first, then hand it over.
    const opening = cira.server.service.openChannel(uuidOf(208), 16992);
    const open = (await device.next(is('channel-open'))) as Of<'channel-open'>;
    device.send(encode.channelOpenConfirmation(open.sender, 808, 65536));
    const channel = await opening;
    const exchange = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: 16992, path: '/wsman', method: 'POST', createConnection: () => channel as never }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
      req.end('<Envelope/>');
    });
    let requestText = '';
    while (!requestText.includes('<Envelope/>')) requestText += ((await device.next(is('channel-data'))) as Of<'channel-data'>).data.toString();
    assert.match(requestText, /^POST \/wsman HTTP\/1\.1\r\n/);
    const reply = 'HTTP/1.1 200 OK\r\nContent-Type: application/soap+xml\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n<Resp\r\n4\r\nonse\r\n0\r\n\r\n';
    for (let i = 0; i < reply.length; i += 7) device.send(encode.channelData(open.sender, Buffer.from(reply.slice(i, i + 7))));
    assert.deepEqual(await exchange, { status: 200, body: '<Response' });
    device.destroy();
  });
});
