/**
 * Concurrent tasks of one worker thread share its Digest nonces per device. Requests on one nonce must
 * reach the device with `nc` in order, and a stale 401 (right credentials, nonce no longer good) is a
 * request to sign again on the nonce it brings, never a failed login or a refusal of the credentials.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DigestNonceCache } from '../../workers/amt/digest-nonce-cache.js';
import { AmtError } from '../../workers/amt/errors.js';
import { createDeviceTransport, type DeviceTransport } from '../../workers/amt/http-transport.js';
import { WsmanClient } from '../../workers/amt/wsman-client.js';
import { readPowerState } from '../../workers/amt/reads/power-state.js';
import { readHardwareInventory } from '../../workers/amt/reads/hardware-inventory.js';
import { readEventLog } from '../../workers/amt/reads/event-log.js';
import { startFleet, type Fleet, type SimDevice } from '../sim/index.js';
import { ADMIN, FAST_TIMEOUTS, WRONG } from './helpers.js';

let fleet: Fleet;
const open: DeviceTransport[] = [];

function clientFor(device: SimDevice, cache: DigestNonceCache, credentials = ADMIN): WsmanClient {
  const transport = createDeviceTransport({ host: device.address, port: 16992, tls: false, timeouts: FAST_TIMEOUTS, maxResponseBytes: 1 << 20 });
  open.push(transport);
  return new WsmanClient({ transport, credentials, nonceCache: cache });
}

/** One operation of the kinds the console runs at once: power state, hardware inventory, event log. */
function operation(client: WsmanClient, kind: number): Promise<unknown> {
  if (kind % 3 === 0) return readPowerState(client);
  if (kind % 3 === 1) return readHardwareInventory(client);
  return readEventLog(client);
}

before(async () => {
  fleet = await startFleet({ count: 3, base: '127.115.1.2', rmcpPort: 0, pageSize: 2, eventLogRecords: 12, lockoutThreshold: 10, lockoutMs: 60_000, seed: 'digest-concurrency' });
});
after(async () => {
  await Promise.all(open.map((t) => t.close()));
  await fleet?.stop();
});

describe('concurrent operations on one device', () => {
  it('all succeed on a shared nonce cache, with no failed login on the device or in any client', async () => {
    const device = fleet.devices[0]!;
    const cache = new DigestNonceCache();
    for (const width of [3, 10, 6, 10, 10]) {
      const clients = Array.from({ length: width }, () => clientFor(device, cache));
      const outcomes = await Promise.allSettled(clients.map((client, i) => operation(client, i)));
      for (const outcome of outcomes) {
        assert.equal(outcome.status, 'fulfilled', outcome.status === 'rejected' ? `${(outcome.reason as AmtError).code}: ${(outcome.reason as Error).message}` : '');
      }
      assert.deepEqual(
        clients.map((c) => c.failedLogins),
        clients.map(() => 0),
      );
      assert.ok(clients.every((c) => c.authenticated));
    }
    const counters = device.counters();
    assert.equal(counters.authFailures, 0, 'the device counted failed logins');
    assert.equal(device.lockedOut, false);
  });

  it('a stale 401 is signed again on the nonce it brings, costing no failed login', async () => {
    const device = fleet.devices[1]!;
    const cache = new DigestNonceCache();
    await Promise.all(Array.from({ length: 5 }, () => readPowerState(clientFor(device, cache))));
    assert.equal(cache.idle(device.address + ':16992'), 4);
    device.resetCounters();
    // The device forgets its nonces while the cache holds four: each of those requests gets a stale
    // 401 and signs again on the nonce that 401 brings; the fifth asks for a nonce of its own.
    device.expireNonces();
    const clients = Array.from({ length: 5 }, () => clientFor(device, cache));
    await Promise.all(clients.map((client) => readPowerState(client)));
    assert.deepEqual(
      clients.map((c) => c.failedLogins),
      [0, 0, 0, 0, 0],
    );
    assert.deepEqual([device.counters().unauthorized, device.counters().authFailures], [5, 0]);
  });

  it('a device that calls every nonce stale is a bad response after two fresh nonces, never a refusal', async () => {
    const stale = await startFleet({ count: 1, base: '127.115.1.9', rmcpPort: 0, nonceTtlMs: -1, seed: 'always-stale' });
    try {
      const device = stale.devices[0]!;
      const client = clientFor(device, new DigestNonceCache());
      await assert.rejects(readPowerState(client), (error: AmtError) => error.code === 'AMT_ERR_BAD_RESPONSE' && /stale/.test(error.message));
      assert.equal(client.failedLogins, 0);
      // One unsigned request, then the first signature and two more on fresh nonces.
      assert.deepEqual([device.counters().unauthorized, device.counters().authAttempts, device.counters().authFailures], [4, 3, 0]);
    } finally {
      await stale.stop();
    }
  });

  it('a wrong password is still refused after one failed login, even beside concurrent right ones', async () => {
    const device = fleet.devices[2]!;
    const cache = new DigestNonceCache();
    await readPowerState(clientFor(device, cache));
    device.resetCounters();
    const right = Array.from({ length: 4 }, () => clientFor(device, cache));
    const wrong = clientFor(device, cache, WRONG);
    const [refused, ...fine] = await Promise.allSettled([readPowerState(wrong), ...right.map((c) => readPowerState(c))]);
    assert.equal(refused!.status, 'rejected');
    assert.equal(((refused as PromiseRejectedResult).reason as AmtError).code, 'AMT_ERR_UNAUTHORIZED');
    assert.equal(wrong.failedLogins, 1);
    assert.ok(fine.every((o) => o.status === 'fulfilled'));
    assert.deepEqual(
      right.map((c) => c.failedLogins),
      [0, 0, 0, 0],
    );
    assert.equal(device.counters().authFailures, 1);
  });
});
