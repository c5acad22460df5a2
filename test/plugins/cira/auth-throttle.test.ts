import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAuthThrottle, type AuthThrottleOptions } from '../../../plugins/cira/server/auth-throttle.js';

const OPTIONS: AuthThrottleOptions = {
  freeFailures: 2,
  delayStepMs: 100,
  maxDelayMs: 250,
  windowSeconds: 10,
  addressFreeFailures: 5,
  addressMaxDelayMs: 150,
  maxConcurrentPerAddress: 100,
  maxAddresses: 2,
};

describe('CIRA sign-in throttle', () => {
  it('delays failures per address and user name after the free ones, caps the delay, forgets after the window', () => {
    let now = 0;
    const throttle = createAuthThrottle({ ...OPTIONS, addressFreeFailures: 1000 }, () => now);
    const fail = (address: string, times: number, name = 'admin') => {
      let last = 0;
      for (let i = 0; i < times; i++) {
        const attempt = throttle.begin(address, name)!;
        last = attempt.delayMs;
        attempt.settle(false);
      }
      return last;
    };
    assert.equal(fail('a', 3), 0, 'free failures');
    assert.equal(fail('a', 1), 100);
    assert.equal(fail('a', 5), 250, 'capped');
    assert.equal(fail('b', 1), 0, 'per address');
    assert.equal(fail('a', 1, 'other'), 0, 'per user name');
    now = 10_001;
    assert.equal(fail('a', 1), 0, 'the window passed');
  });

  it('counts an attempt when it starts: parallel guesses see each other', () => {
    const throttle = createAuthThrottle(OPTIONS);
    const attempts = Array.from({ length: 5 }, () => throttle.begin('a', 'admin')!);
    assert.deepEqual(attempts.map((a) => a.delayMs), [0, 0, 0, 100, 200]);
  });

  it('caps the attempts of one address waiting at once; a settled one frees its place', () => {
    const throttle = createAuthThrottle({ ...OPTIONS, maxConcurrentPerAddress: 2 });
    const first = throttle.begin('a', 'x')!;
    assert.ok(throttle.begin('a', 'y'));
    assert.equal(throttle.begin('a', 'z'), null, 'a third at once is refused');
    assert.ok(throttle.begin('b', 'z'), 'another address is not');
    first.settle(false);
    first.settle(false);
    assert.ok(throttle.begin('a', 'z'), 'room again after one settled');
    assert.equal(throttle.begin('a', 'w'), null, 'a second settle of the same attempt frees nothing');
  });

  it('a success clears its own user name only, never the failures of other names from the address', () => {
    const throttle = createAuthThrottle(OPTIONS);
    for (let i = 0; i < 4; i++) throttle.begin('a', 'victim')!.settle(false);
    throttle.begin('a', 'device')!.settle(true);
    assert.equal(throttle.begin('a', 'victim')!.delayMs, 200, 'the guessed name stays delayed');
    const device = throttle.begin('a', 'device')!;
    assert.equal(device.delayMs, 0, 'the device that signed in waits nothing (address failures below addressFreeFailures)');
  });

  it('failures of many names from one address delay every name of it, at most addressMaxDelayMs', () => {
    const throttle = createAuthThrottle(OPTIONS);
    for (let i = 0; i < 20; i++) throttle.begin('nat', `guess-${i}`)!.settle(false);
    assert.equal(throttle.begin('nat', 'healthy-device')!.delayMs, 150, 'capped at the address bound, below maxDelayMs');
    assert.equal(throttle.begin('elsewhere', 'healthy-device')!.delayMs, 0);
  });
});
