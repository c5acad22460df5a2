/**
 * The device tasks run in worker threads of the real pool (createWorkerPool), against simulated devices:
 * probe a batch with progress, interrogate, power, inventory, event log, diagnostics, cancellation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createWorkerPool, type WorkerPool } from '../../core/pool/worker-pool.js';
import type { DeviceTaskRunOutput, DigestCarry, ProbeBatchProgress } from '../../workers/tasks/task-types.js';
import { startFleet, type Fleet } from '../sim/index.js';
import { ADMIN, ALT_ADMIN, FAST_TIMEOUTS } from './helpers.js';

const RMCP_PORT = 16623;
let fleet: Fleet;
let pool: WorkerPool;

before(async () => {
  fleet = await startFleet({ count: 24, base: '127.20.5.1', rmcpPort: RMCP_PORT, tlsEvery: 4, altPasswordEvery: 6, seed: 'pool', provisioningStates: [2, 2, 1] });
  pool = createWorkerPool({ threads: 2, concurrentTasksPerWorker: 16, maxQueue: 1_000, idleTimeoutMs: 5_000 });
});
after(async () => {
  await pool?.close();
  await fleet?.stop();
});

const targetOf = (i: number) => {
  const d = fleet.devices[i]!;
  return { address: d.address, port: d.config.tls ? 16993 : 16992, tls: d.config.tls, timeouts: FAST_TIMEOUTS };
};

describe('tasks in the worker pool', () => {
  it('probe-batch finds every device with its ports and pong, reporting progress', async () => {
    const empty = Array.from({ length: 30 }, (_, i) => `127.20.6.${i + 1}`);
    const addresses = [...fleet.devices.map((d) => d.address), ...empty];
    const progress: ProbeBatchProgress[] = [];
    const out = await pool.run(
      'probe-batch',
      { addresses, ports: { rmcp: RMCP_PORT }, connectTimeoutMs: 1_000, rmcp: { windowMs: 3_000 }, progressIntervalMs: 20 },
      { onProgress: (p) => progress.push(p) },
    );
    assert.equal(out.probed, addresses.length);
    assert.equal(out.cancelled, false);
    assert.equal(out.candidates.length, fleet.devices.length);
    for (const device of fleet.devices) {
      const c = out.candidates.find((x) => x.address === device.address);
      assert.ok(c, device.address);
      assert.deepEqual(c.openPorts, [RMCP_PORT, device.config.tls ? 16993 : 16992]);
      assert.equal(c.pong?.provisioningState, device.config.provisioningState);
    }
    const early = progress.flatMap((p) => p.candidates ?? []);
    assert.deepEqual(
      [...new Set(early.map((c) => c.address))].sort(),
      fleet.devices.map((d) => d.address).sort(),
      'every device was offered before the 3 s window ended the batch',
    );
    for (const device of fleet.devices) {
      const releases = early.filter((c) => c.address === device.address);
      // Released once with its pong, or first without it (pongPending: its TCP probes ended before the pong came) and again with it.
      assert.ok(releases.length <= 2 && releases.slice(0, -1).every((c) => c.pongPending === true), `${device.address}: ${JSON.stringify(releases)}`);
      assert.deepEqual(releases.at(-1), out.candidates.find((x) => x.address === device.address), 'the last early release is the same as in the final list');
    }
    assert.ok(progress.length >= 1);
    const last = progress.at(-1)!;
    assert.deepEqual({ probed: last.probed, total: last.total, found: last.found }, { probed: addresses.length, total: addresses.length, found: fleet.devices.length });
    assert.ok(last.probesTotal! > 0 && last.probesDecided === last.probesTotal, `every probe decided at the end: ${JSON.stringify(last)}`);
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i]!.probed >= progress[i - 1]!.probed);
  });

  it('interrogates many devices concurrently, each read matching the device', async () => {
    const results = await Promise.all(
      fleet.devices.slice(0, 12).map((d) =>
        pool.run('interrogate', { address: d.address, tls: d.config.tls, credential: d.config.passwordId === 'alt' ? ALT_ADMIN : ADMIN, timeouts: FAST_TIMEOUTS }),
      ),
    );
    results.forEach((out, i) => {
      const d = fleet.devices[i]!;
      assert.equal(out.authStatus, 'ok', `${d.address}: ${out.error?.message}`);
      assert.equal(out.credentialId, d.config.passwordId === 'alt' ? ALT_ADMIN.id : ADMIN.id);
      assert.equal(out.hostname, d.config.hostname);
      assert.equal(out.uuid, d.config.uuid);
      assert.equal(out.provisioningState, d.config.provisioningState);
      assert.equal(out.serverVersion, d.config.firmwareVersion);
      assert.equal(out.tlsFingerprint !== null, d.config.tls);
    });
  });

  it('reads and changes power, reads inventory and the event log (device tasks, each on one connection)', async () => {
    const device = fleet.devices[13]!;
    const target = targetOf(13);
    const task = <T>(name: string, input: unknown) =>
      pool.run('device-task', { target, credential: ADMIN, digest: null, task: name, input }).then((out) => {
        assert.ok(out.ok, JSON.stringify(out));
        return (out as { value: T }).value;
      });
    const before = await task<{ powerState: number }>('power-read', {});
    assert.equal(before.powerState, 2);
    const change = await task<{ accepted: boolean; confirmed: boolean; powerState: number }>('power-change', { powerState: 8, confirm: { states: [6, 8], attempts: 2, intervalMs: 0 } });
    assert.deepEqual([change.accepted, change.confirmed, change.powerState], [true, true, 8]);
    assert.equal(device.state.powerState, 8);
    const inventory = await task<{ summary: { system?: { serialNumber: string }; memory: unknown[] } }>('inventory', {});
    assert.equal(inventory.summary.system?.serialNumber, `JR${device.config.serial}`);
    assert.equal(inventory.summary.memory.length, 2);
    const log = await task<{ records: unknown[] }>('event-log', { maxRecords: 10 });
    assert.equal(log.records.length, 10);
    const check = await pool.run('wsman-check', { address: device.address, credential: ADMIN, timeouts: FAST_TIMEOUTS });
    assert.deepEqual([check.reachable, check.authenticated, check.hostname], [true, true, device.config.hostname]);
  });

  it('returns device failures as data across the worker boundary', async () => {
    const device = fleet.devices[14]!;
    await device.stop();
    try {
      const out = await pool.run('device-task', { target: targetOf(14), credential: ADMIN, digest: null, task: 'power-read', input: {} });
      assert.equal(out.ok, false);
      assert.equal(!out.ok && out.error.code, 'AMT_ERR_CONNECT');
      const scan = await pool.run('interrogate', { address: device.address, credential: ADMIN, timeouts: FAST_TIMEOUTS });
      assert.equal(scan.authStatus, 'unreachable');
    } finally {
      await device.start();
    }
  });

  it('cancels a running probe-batch within its cancellation bound', async () => {
    // Enough refused connects, one at a time, that the probe is still running when the cancel lands.
    const addresses = Array.from({ length: 20_000 }, (_, i) => `127.22.${i >> 8}.${(i & 255) || 1}`);
    const token = pool.createCancelToken();
    const started = performance.now();
    const run = pool.run('probe-batch', { addresses, ports: { rmcp: RMCP_PORT }, concurrency: 2, connectTimeoutMs: 1_000, rmcp: { windowMs: 30_000 } }, { cancel: token });
    setTimeout(() => token.cancel(), 300);
    const out = await run;
    assert.equal(out.cancelled, true);
    assert.ok(out.probed < addresses.length);
    assert.ok(performance.now() - started < 10_000);
  });
});

describe('Digest session carried from one operation to the next', () => {
  it("answers one 401 for an interrogation and the power reads that follow, each read one request on the nonce the last one left", async () => {
    const single = createWorkerPool({ threads: 1, concurrentTasksPerWorker: 4, maxQueue: 100, idleTimeoutMs: 5_000 });
    try {
      const device = fleet.devices[20]!;
      device.resetCounters();
      const scan = await single.run('interrogate', { address: device.address, tls: device.config.tls, credential: ADMIN, timeouts: FAST_TIMEOUTS });
      assert.equal(scan.authStatus, 'ok');
      // The first read finds the scan's nonce in its thread; each next one starts on the session the last one returned, as the gate hands it on.
      let digest: DigestCarry | null = null;
      for (let i = 0; i < 3; i++) {
        const out: DeviceTaskRunOutput = await single.run('device-task', { target: targetOf(20), credential: ADMIN, digest, task: 'power-read', input: {} });
        assert.ok(out.ok);
        assert.ok(out.digest?.proven, 'the session it ended on signed in with this credential');
        digest = out.digest;
      }
      const c = device.counters();
      assert.equal(c.unauthorized, 1);
      assert.equal(c.authFailures, 0);
      // Firmware (a selector Get), provisioning, general settings, UUID, then 3 x one Get, plus the one 401.
      assert.equal(c.requests, 1 + 4 + 3);
    } finally {
      await single.close();
    }
  });
});
