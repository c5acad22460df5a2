/**
 * The sign-in throttle against the real server: parallel guesses are counted when they start and
 * capped per address, another account's success clears nothing of a guessed name, a healthy device
 * behind the guessed address still gets in, and failures are logged once per address per interval
 * with the user name truncated to printable characters.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encode } from '../../sim/cira-apf.js';
import { MPS_PASSWORD, MPS_USER, RawDevice, startCiraServer, uuidOf } from './cira-test-kit.js';

/** One connection, one sign-in; the answer's type and how long it took from the USERAUTH_REQUEST. */
async function attempt(port: number, address: string, n: number, username: string, password: string): Promise<{ answer: string | undefined; ms: number }> {
  const device = await RawDevice.connect(port, address);
  try {
    const started = performance.now();
    const answer = await device.signIn(uuidOf(n), username, password);
    return { answer: answer?.type, ms: performance.now() - started };
  } finally {
    device.destroy();
  }
}

describe('cira server: sign-in throttle', () => {
  it('counts parallel guesses when they start and checks at most maxConcurrentPerAddress of one address at once', async () => {
    const cira = await startCiraServer({ authThrottle: { freeFailures: 0, delayStepMs: 500, maxDelayMs: 1500, maxConcurrentPerAddress: 4 } });
    try {
      const devices = await Promise.all(Array.from({ length: 12 }, () => RawDevice.connect(cira.port, '127.0.33.1')));
      await Promise.all(devices.map(async (device, i) => {
        device.send(encode.protocolVersion(uuidOf(100 + i)), encode.serviceRequest('auth@amt.intel.com'));
        await device.next((m) => m.type === 'service-accept');
      }));
      // All 12 guesses at once: the first is checked at once (no failure yet), each later one sees those before it.
      for (const [i, device] of devices.entries()) device.send(encode.userauthPassword(MPS_USER, `guess-${i}`));
      const answers = await Promise.all(devices.map((device) => device.next((m) => m.type === 'userauth-failure' || m.type === 'userauth-success')));
      assert.ok(answers.every((a) => a === null || a.type === 'userauth-failure'), 'no guess got in');
      const stats = cira.server.stats();
      assert.equal(stats.authFailures, 5, 'the first, then the 4 allowed to wait at once (500, 1000, 1500, 1500 ms), were checked');
      assert.equal(stats.throttledSignIns, 7, 'the rest were refused unchecked');
      for (const device of devices) device.destroy();
    } finally {
      await cira.close();
    }
  });

  it("another account's success clears nothing: the guessed name stays delayed", async () => {
    const cira = await startCiraServer({ authThrottle: { freeFailures: 2, delayStepMs: 300, maxDelayMs: 2000, addressFreeFailures: 1000 } });
    try {
      const address = '127.0.33.2';
      for (let i = 0; i < 5; i++) assert.equal((await attempt(cira.port, address, 200 + i, 'victim', `guess-${i}`)).answer, 'userauth-failure');
      assert.equal((await attempt(cira.port, address, 210, MPS_USER, MPS_PASSWORD)).answer, 'userauth-success', 'a valid account from the same address');
      const next = await attempt(cira.port, address, 211, 'victim', 'guess-5');
      assert.equal(next.answer, 'userauth-failure');
      assert.ok(next.ms >= 850, `the next guess waited ${Math.round(next.ms)} ms (5 failures, 2 free, 300 ms each)`);
    } finally {
      await cira.close();
    }
  });

  it('a healthy device behind an address that guesses other names gets in, waiting at most addressMaxDelayMs', async () => {
    const cira = await startCiraServer({ authThrottle: { freeFailures: 1, delayStepMs: 100, maxDelayMs: 5000, addressFreeFailures: 3, addressMaxDelayMs: 400 } });
    try {
      const nat = '127.0.33.3';
      for (let i = 0; i < 12; i++) await attempt(cira.port, nat, 300 + i, `guess-${i}`, 'x');
      const device = await attempt(cira.port, nat, 320, MPS_USER, MPS_PASSWORD);
      assert.equal(device.answer, 'userauth-success');
      assert.ok(device.ms >= 350, `it paid the address delay (${Math.round(device.ms)} ms)`);
    } finally {
      await cira.close();
    }
  });

  it('logs failed sign-ins once per address per interval, then a summary with the count; user names truncated and printable', async () => {
    const cira = await startCiraServer({ authThrottle: { delayStepMs: 0 }, logIntervalSeconds: 3600 });
    const longName = `\u001b[31m${'A'.repeat(1000)}`;
    try {
      for (let i = 0; i < 10; i++) await attempt(cira.port, '127.0.33.4', 400 + i, longName, 'x');
      await attempt(cira.port, '127.0.33.5', 420, 'other', 'x');
    } finally {
      await cira.close();
    }
    const lines = cira.logs.filter((line) => line.includes('sign-in')).map((line) => JSON.parse(line) as { msg: string; username: string; remoteAddress: string; count?: number });
    const first = lines.filter((l) => l.msg === 'cira device sign-in refused');
    assert.deepEqual(first.map((l) => l.remoteAddress), ['127.0.33.4', '127.0.33.5'], 'one line per address');
    assert.match(first[0]!.username, /^\?\[31mA{59}… \(1005 characters\)$/);
    const summaries = lines.filter((l) => l.msg === 'cira device sign-ins refused (summary)');
    assert.deepEqual(summaries.map((l) => [l.remoteAddress, l.count]), [['127.0.33.4', 9]]);
  });
});
