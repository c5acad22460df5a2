/** The file descriptors `ulimit -n` gives: the gate's device connections first, then the scans' probes in flight. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openFileLimit, socketBudget, RESERVED_DESCRIPTORS } from '../../../plugins/devices/gate/socket-budget.js';

describe('socket budget', () => {
  it('reads ulimit -n from /proc/self/limits', () => {
    assert.equal(openFileLimit('Limit Soft Limit Hard Limit Units\nMax open files            1024                 4096                 files\n'), 1024);
    assert.equal(openFileLimit('Max open files            unlimited            unlimited            files\n'), Number.MAX_SAFE_INTEGER);
    assert.equal(openFileLimit('nothing here'), null);
    const own = openFileLimit();
    assert.ok(own === null || own > 0);
  });

  it('lowers device connections and probes in flight to fit the limit, and says how to raise it', () => {
    const asked = { deviceConnections: 1024, probesPerScan: 4096, maxConcurrentScans: 4 };
    const roomy = socketBudget(1_048_576, asked);
    assert.deepEqual([roomy.deviceConnections, roomy.probesPerScan, roomy.warning], [1024, 4096, null]);
    const tight = socketBudget(1024, asked);
    const usable = 1024 - RESERVED_DESCRIPTORS;
    assert.equal(tight.deviceConnections, usable / 2);
    assert.equal(tight.probesPerScan, Math.floor((usable - usable / 2) / 4));
    assert.ok(tight.deviceConnections + tight.probesPerScan * 4 + RESERVED_DESCRIPTORS <= 1024, 'everything fits under the limit');
    assert.match(tight.warning!, /ulimit -n is 1024/);
    assert.match(tight.warning!, /LimitNOFILE/);
    assert.equal(socketBudget(null, asked).probesPerScan, 4096, 'unknown limit: as asked');
  });
});
