import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createAuthThrottle } from '../../../plugins/cira/server/auth-throttle.js';

it('delays failed sign-ins per address after the free ones, caps the delay, forgets after the window or a success', () => {
  let now = 0;
  const throttle = createAuthThrottle({ freeFailures: 2, delayStepMs: 100, maxDelayMs: 250, windowSeconds: 10, maxAddresses: 2 }, () => now);
  const fail = (address: string, times: number) => {
    for (let i = 0; i < times; i++) throttle.failed(address);
  };
  fail('a', 2);
  assert.equal(throttle.delayMs('a'), 0);
  fail('a', 1);
  assert.equal(throttle.delayMs('a'), 100);
  fail('a', 5);
  assert.equal(throttle.delayMs('a'), 250, 'capped');
  assert.equal(throttle.delayMs('b'), 0, 'per address');
  now = 10_001;
  assert.equal(throttle.delayMs('a'), 0, 'the window passed');
  fail('a', 4);
  throttle.succeeded('a');
  assert.equal(throttle.delayMs('a'), 0, 'a success forgets');
  fail('a', 4);
  fail('b', 4);
  fail('c', 4);
  assert.equal(throttle.delayMs('a'), 0, 'the oldest address is forgotten beyond maxAddresses');
  assert.equal(throttle.delayMs('c'), 200);
});
