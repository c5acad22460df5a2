import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseApfMessage } from '../../../plugins/cira/apf/apf-parse.js';
import { encode } from '../../sim/cira-apf.js';

const limits = { maxMessageBytes: 4096 };
const UUID = '12345678-9abc-def0-1122-334455667788';
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};
const field = (s: string) => Buffer.concat([u32(Buffer.byteLength(s)), Buffer.from(s)]);

const DEVICE_MESSAGES: Array<[string, Buffer]> = [
  ['protocol version', encode.protocolVersion(UUID, 4)],
  ['service request', encode.serviceRequest('auth@amt.intel.com')],
  ['password sign-in', encode.userauthPassword('mps-user', 'pässword')],
  ['tcpip-forward', encode.tcpipForward(16993, '192.0.2.1')],
  ['keep-alive request', encode.keepAliveRequest(7)],
  ['keep-alive options reply', encode.keepAliveOptionsReply(30, 90)],
  ['channel-open confirmation', encode.channelOpenConfirmation(1, 2, 3)],
  ['channel-open failure', encode.channelOpenFailure(1, 2)],
  ['window adjust', encode.windowAdjust(1, 2)],
  ['channel data', encode.channelData(1, Buffer.from('hello'))],
  ['channel close', encode.channelClose(1)],
  ['disconnect', encode.disconnect(11)],
];

describe('APF parser', () => {
  for (const [name, bytes] of DEVICE_MESSAGES) {
    it(`needs more bytes for every prefix of a ${name} and consumes exactly the whole message`, () => {
      for (let cut = 0; cut < bytes.length; cut++) assert.equal(parseApfMessage(bytes.subarray(0, cut), 0, limits).kind, 'need-more', `prefix of ${cut} bytes`);
      const packed = Buffer.concat([bytes, encode.keepAliveRequest(99)]);
      const first = parseApfMessage(packed, 0, limits);
      assert.equal(first.kind, 'message');
      assert.equal(first.kind === 'message' && first.bytes, bytes.length);
      const second = parseApfMessage(packed, bytes.length, limits);
      assert.deepEqual(second.kind === 'message' && second.message, { type: 208, cookie: 99 });
    });
  }

  it('decodes the fields: UUID with its first three fields little-endian, user, password, port', () => {
    const version = parseApfMessage(encode.protocolVersion(UUID, 4), 0, limits);
    assert.deepEqual(version.kind === 'message' && version.message, { type: 192, major: 1, minor: 0, trigger: 4, uuid: UUID });
    const auth = parseApfMessage(encode.userauthPassword('mps-user', 'pässword'), 0, limits);
    assert.deepEqual(auth.kind === 'message' && auth.message, { type: 50, username: 'mps-user', service: 'pfwd@amt.intel.com', method: 'password', password: 'pässword' });
    const forward = parseApfMessage(encode.tcpipForward(16993, '192.0.2.1'), 0, limits);
    assert.deepEqual(forward.kind === 'message' && forward.message, { type: 80, name: 'tcpip-forward', wantReply: true, address: '192.0.2.1', port: 16993 });
  });

  it('tells how many bytes an incomplete message needs at least, so that a reader waits for them', () => {
    const data = encode.channelData(3, Buffer.alloc(1000, 1));
    assert.deepEqual(parseApfMessage(data.subarray(0, 20), 0, limits), { kind: 'need-more', atLeast: 1009 });
    assert.deepEqual(parseApfMessage(data.subarray(0, 3), 0, limits), { kind: 'need-more', atLeast: 5 });
    const shifted = Buffer.concat([encode.keepAliveRequest(1), data.subarray(0, 20)]);
    assert.deepEqual(parseApfMessage(shifted, 5, limits), { kind: 'need-more', atLeast: 1009 });
  });

  it('is malformed, before the bytes arrive, when a declared length passes the bound', () => {
    const header = Buffer.concat([Buffer.from([94]), u32(1), u32(5000)]);
    assert.deepEqual(parseApfMessage(header, 0, limits), { kind: 'malformed', reason: 'field of 5000 bytes exceeds 4096' });
    const justOver = Buffer.concat([Buffer.from([94]), u32(1), u32(4096 - 8)]);
    assert.equal(parseApfMessage(justOver, 0, limits).kind, 'malformed', 'the type byte and headers count toward the limit');
    const longName = Buffer.concat([Buffer.from([5]), u32(100_000)]);
    assert.equal(parseApfMessage(longName, 0, { maxMessageBytes: 1 << 20 }).kind, 'malformed', 'text fields have their own bound');
  });

  it('is malformed on an unknown type and on server-only types', () => {
    assert.equal(parseApfMessage(Buffer.from([0x77, 0, 0]), 0, limits).kind, 'malformed');
    assert.equal(parseApfMessage(Buffer.from([81, 0, 0, 0, 1]), 0, limits).kind, 'malformed');
  });

  it('reads an unknown global request as name and want-reply, and a non-password sign-in without a password', () => {
    const unknown = Buffer.concat([Buffer.from([80]), field('other@amt.intel.com'), Buffer.from([1])]);
    const parsed = parseApfMessage(unknown, 0, limits);
    assert.deepEqual(parsed.kind === 'message' && [parsed.message, parsed.bytes], [{ type: 80, name: 'other@amt.intel.com', wantReply: true, address: null, port: null }, unknown.length]);
    const none = Buffer.concat([Buffer.from([50]), field('u'), field('pfwd@amt.intel.com'), field('none')]);
    const noPassword = parseApfMessage(none, 0, limits);
    assert.equal(noPassword.kind === 'message' && noPassword.bytes, none.length);
  });
});
