import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProgressThrottle } from '../../../plugins/scan-hub/progress-throttle.js';
import type { ScanProgressEvent } from '../../../plugins/rest-api/api.js';

const progress = (scanId: string, percent: number): ScanProgressEvent => ({ scanId, scanned: percent, total: 100, found: 0, percent });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a burst of progress is held to one per interval per scan, the latest wins and 100 % goes out at once', async () => {
  const out: string[] = [];
  const throttle = new ProgressThrottle(200, (p) => out.push(`${p.scanId}:${p.percent}`));
  for (let percent = 1; percent <= 50; percent++) throttle.push(progress('a', percent));
  throttle.push(progress('b', 5));
  assert.deepEqual(out, ['a:1', 'b:5'], 'the first of each scan goes out at once');
  await sleep(350);
  assert.deepEqual(out, ['a:1', 'b:5', 'a:50'], 'then the latest held one, after the interval');
  throttle.push(progress('a', 60));
  throttle.push(progress('a', 100));
  assert.deepEqual(out.slice(3), ['a:100'], '100 % is never held, and replaces what was');
  await sleep(300);
  assert.deepEqual(out.slice(3), ['a:100'], 'nothing stale follows it');
  throttle.close();
});

test('ending a scan releases its held progress at once', () => {
  const out: number[] = [];
  const throttle = new ProgressThrottle(10_000, (p) => out.push(p.percent));
  throttle.push(progress('c', 10));
  throttle.push(progress('c', 40));
  throttle.end('c');
  assert.deepEqual(out, [10, 40]);
  throttle.close();
});

test('a completed scan always shows 100 %: filled in when its publisher stopped short, not repeated when it did not', () => {
  const out: string[] = [];
  const throttle = new ProgressThrottle(100, (p) => out.push(`${p.scanId}:${p.percent}`));
  throttle.push(progress('short', 99));
  throttle.end('short', progress('short', 100));
  throttle.push(progress('full', 100));
  throttle.end('full', progress('full', 100));
  throttle.end('silent', progress('silent', 100));
  throttle.end('cancelled');
  assert.deepEqual(out, ['short:99', 'short:100', 'full:100', 'silent:100']);
  throttle.close();
});
