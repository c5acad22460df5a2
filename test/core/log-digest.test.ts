import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createLogger } from '../../core/log/logger.js';
import { createLogDigest, loggableName } from '../../core/log/log-digest.js';

it('writes the first event of a key at once, counts the rest into one summary, and shares one key beyond maxKeys', () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'debug', write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  const digest = createLogDigest({ logger, message: 'refused', summary: 'refused (summary)', intervalMs: 3_600_000, maxKeys: 2 });
  for (const address of ['a', 'a', 'a', 'b', 'c', 'd', 'd']) digest.note(address, { remoteAddress: address });
  assert.deepEqual(lines.map((l) => [l.msg, l.remoteAddress]), [['refused', 'a'], ['refused', 'b'], ['refused', 'c']]);
  digest.close();
  assert.deepEqual(lines.slice(3).map((l) => [l.msg, l.remoteAddress, l.count]), [['refused (summary)', 'a', 2], ['refused (summary)', 'other addresses', 2]]);
  digest.close();
  assert.equal(lines.length, 5, 'nothing is counted twice');
});

it('makes a device-sent name loggable: printable ASCII, at most 64 characters, its length when cut', () => {
  assert.equal(loggableName('mps-user'), 'mps-user');
  assert.equal(loggableName('a\u0000b\nc\u00e9'), 'a?b?c?');
  assert.equal(loggableName('x'.repeat(1024)), `${'x'.repeat(64)}… (1024 characters)`);
});
