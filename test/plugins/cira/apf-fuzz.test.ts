/**
 * Fuzzing the APF parser (random and mutated messages; the seed is fixed, AMTGW_FUZZ_SEED replays
 * another): the parser never throws and never asks for more than its bound; through the real server
 * before and after sign-in, only the fuzzed tunnel ends, no exception escapes, and the bytes a
 * tunnel holds unparsed stay within its bound (preAuth.maxMessageBytes before sign-in).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseApfMessage } from '../../../plugins/cira/apf/apf-parse.js';
import { encode } from '../../sim/cira-apf.js';
import { fuzzMessage, seededRandom, splitRandomly } from './apf-fuzz-corpus.js';
import { RawDevice, startCiraServer, uuidOf, type TestCiraServer } from './cira-test-kit.js';
import { until } from '../../helpers/poll.js';

const SEED = Number(process.env.AMTGW_FUZZ_SEED ?? 0x19);
const MAX_MESSAGE = 8192;
const PRE_AUTH_MAX = 1024;

describe(`APF fuzzing (seed ${SEED})`, () => {
  it('the parser answers every random or mutated input with a message, need-more or malformed, within its bound', () => {
    const random = seededRandom(SEED);
    const limits = { maxMessageBytes: 4096 };
    const kinds = { message: 0, 'need-more': 0, malformed: 0 };
    for (let i = 0; i < 30_000; i++) {
      const input = Buffer.concat([fuzzMessage(random), random() < 0.3 ? fuzzMessage(random) : Buffer.alloc(0)]);
      const offset = random() < 0.2 ? Math.floor(random() * (input.length + 1)) : 0;
      const result = parseApfMessage(input, offset, limits);
      kinds[result.kind]++;
      if (result.kind === 'message') assert.ok(result.bytes >= 1 && offset + result.bytes <= input.length && result.bytes <= limits.maxMessageBytes, `case ${i}`);
      if (result.kind === 'need-more') assert.ok(result.atLeast > input.length - offset && result.atLeast <= limits.maxMessageBytes, `case ${i}: needs ${result.atLeast}`);
    }
    assert.ok(kinds.message > 1000 && kinds['need-more'] > 1000 && kinds.malformed > 1000, `every kind reached: ${JSON.stringify(kinds)}`);
  });

  describe('through the real server', () => {
    let cira: TestCiraServer;
    let bystander: RawDevice;
    const escaped: unknown[] = [];
    const onEscape = (err: unknown) => void escaped.push(err);

    before(async () => {
      process.on('uncaughtException', onEscape);
      cira = await startCiraServer({ maxMessageBytes: MAX_MESSAGE, preAuth: { maxMessageBytes: PRE_AUTH_MAX, maxConnectionsPerAddress: 1000 }, forwardSettleMs: 20 });
      bystander = await RawDevice.connect(cira.port, '127.0.34.1');
      await bystander.handshake(uuidOf(3400));
    });
    after(async () => {
      process.off('uncaughtException', onEscape);
      bystander.destroy();
      await cira.close();
    });

    /** Sends `messages` in random pieces, then closes. */
    async function fuzzTunnel(random: () => number, device: RawDevice, messages: number): Promise<void> {
      for (let m = 0; m < messages && !device.isClosed; m++) {
        for (const piece of splitRandomly(random, fuzzMessage(random, 0.4))) {
          device.socket.write(piece);
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
      device.destroy();
      await device.closed;
    }

    it('before sign-in: each fuzzed connection ends alone, holding at most preAuth.maxMessageBytes', async () => {
      const random = seededRandom(SEED + 1);
      for (let i = 0; i < 40; i++) {
        const device = await RawDevice.connect(cira.port, '127.0.34.2');
        if (random() < 0.5) device.send(encode.protocolVersion(uuidOf(3500 + i)), encode.serviceRequest('auth@amt.intel.com'));
        await fuzzTunnel(random, device, 8);
      }
      const peak = cira.server.stats().bufferedBytesPeak;
      assert.ok(peak <= PRE_AUTH_MAX, `a connection held ${peak} bytes before sign-in`);
      await stillUp();
    });

    it('after sign-in: each fuzzed tunnel ends alone, holding at most maxMessageBytes', async () => {
      const random = seededRandom(SEED + 2);
      for (let i = 0; i < 30; i++) {
        const device = await RawDevice.connect(cira.port, '127.0.34.3');
        await device.handshake(uuidOf(3600 + i));
        await fuzzTunnel(random, device, 12);
      }
      const peak = cira.server.stats().bufferedBytesPeak;
      assert.ok(peak <= MAX_MESSAGE, `a tunnel held ${peak} bytes`);
      await stillUp();
    });

    async function stillUp(): Promise<void> {
      assert.deepEqual(escaped, [], 'no exception escaped');
      const cookie = Math.floor(Math.random() * 1e6);
      bystander.send(encode.keepAliveRequest(cookie));
      assert.deepEqual(await bystander.next((m) => m.type === 'keepalive-reply' && m.cookie === cookie), { type: 'keepalive-reply', cookie });
      await until('nothing held once the fuzzed tunnels closed', () => cira.server.stats().bufferedBytes === 0, 2000);
      assert.ok(cira.server.stats().protocolErrors > 0, 'the fuzz did reach the protocol checks');
    }
  });
});
