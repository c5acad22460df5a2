/**
 * The SOL codec and set-up against the byte sequences of AMT-NOTES' list of what a device sends in a
 * SOL session: every message framed by its type, only data reaching the viewer, at every split of
 * the reads; what no device sends is refused; the set-up waits through heartbeats and line reports
 * for the settings reply and honours its status byte.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Duplex } from 'node:stream';
import { SOL_MODE, solCodec } from '../../../plugins/redirection/modes/sol.js';
import { StreamReader } from '../../../workers/amt/redirection/stream-reader.js';

function message(type: number, rest: number[] = []): Buffer {
  return Buffer.from([type, 0, 0, 0, 7, 0, 0, 0, ...rest]);
}
const data = (text: string) => message(0x2a, [text.length & 0xff, text.length >> 8, ...Buffer.from(text, 'latin1')]);
const settingsReply = (status = 0) => Buffer.concat([Buffer.from([0x21, status]), Buffer.alloc(21)]);

/** Every type a device may send, with data between them. */
const SESSION = Buffer.concat([
  settingsReply(),
  message(0x29, [3, 4]),
  data('hello'),
  message(0x2b),
  message(0x25),
  data(''),
  message(0x29, [0, 0]),
  data(' world'),
  message(0x23),
  data('!'),
]);

test('only the data of every message type a device may send reaches the viewer, whatever the reads', () => {
  for (let split = 0; split <= SESSION.length; split++) {
    const codec = solCodec();
    const out = [...codec.fromDevice(SESSION.subarray(0, split)), ...codec.fromDevice(SESSION.subarray(split))];
    assert.equal(Buffer.concat(out).toString('latin1'), 'hello world!', `split at ${split}`);
  }
  const byteByByte = solCodec();
  const out: Buffer[] = [];
  for (const byte of SESSION) out.push(...byteByByte.fromDevice(Buffer.from([byte])));
  assert.equal(Buffer.concat(out).toString('latin1'), 'hello world!');
});

test('a type no device sends breaks the framing: refused, not skipped', () => {
  assert.throws(() => solCodec().fromDevice(Buffer.concat([data('a'), message(0x77)])), /unexpected SOL message 0x77/);
});

/** A device's side of a stream: what it sends is pushed, what the codec writes is kept. */
function deviceStream(...fromDevice: Buffer[]): { stream: Duplex; written: Buffer[] } {
  const written: Buffer[] = [];
  const stream = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk);
      done();
    },
  });
  for (const bytes of fromDevice) stream.push(bytes);
  return { stream, written };
}

test('the set-up sends the 24-byte settings and waits through heartbeats and line reports for the reply; early data is kept', async () => {
  const { stream, written } = deviceStream(Buffer.concat([message(0x2b), message(0x29, [3, 4]), data('early '), settingsReply(), data('late')]));
  const reader = new StreamReader(stream, 'test');
  const codec = await SOL_MODE.begin(reader, stream);
  assert.equal(written[0]!.length, 24);
  assert.equal(written[0]![0], 0x20);
  assert.equal(Buffer.concat(codec.fromDevice(reader.release())).toString('latin1'), 'early late');
});

test('a settings reply with a non-zero status is a refusal', async () => {
  const { stream } = deviceStream(settingsReply(1));
  await assert.rejects(SOL_MODE.begin(new StreamReader(stream, 'test'), stream), /refused the SOL settings \(status 1\)/);
});
