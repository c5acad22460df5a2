/**
 * The CIRA test kit's handshake against a real server whose forwards settle at once: the keep-alive
 * options the server sends when they settle may come before the last forward's reply, and a test
 * that waits for them after the handshake must still get them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RawDevice, startCiraServer, uuidOf, type TestCiraServer } from './cira-test-kit.js';

describe('cira test kit: the handshake leaves what it does not wait for', () => {
  let cira: TestCiraServer;
  before(async () => {
    cira = await startCiraServer({ forwardSettleMs: 0 });
  });
  after(() => cira.close());

  it('keeps the keep-alive options that come between two forwards’ replies', async () => {
    for (let n = 0; n < 5; n++) {
      const device = await RawDevice.connect(cira.port, `127.0.23.${n + 1}`);
      await device.handshake(uuidOf(300 + n), [16992, 16993, 16995, 16994, 623, 664]);
      const options = await device.next((m) => m.type === 'keepalive-options-request', 2000);
      assert.equal(options?.type, 'keepalive-options-request', `device ${n}`);
      device.destroy();
    }
  });
});
