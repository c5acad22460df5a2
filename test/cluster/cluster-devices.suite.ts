/**
 * Extra suite (`npm run test:cluster`): devices managed by three gateway processes on one real
 * PostgreSQL, against the simulator on loopback. A scan's events reach another instance's hub and
 * any instance cancels a scan; wrong credentials scanned from every instance at once never lock a
 * device out and no device ever sees two connections, operations from every instance at once on one
 * device taking the cluster-wide turn; a CIRA device is managed through an instance
 * that does not hold its tunnel, and after kill -9 of that instance through the one it dials next.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFleet, type Fleet } from '../sim/index.js';
import { mergeConfig } from '../../core/config/load-config.js';
import { SIM_AMT_SETTINGS, SIM_RMCP_PORT } from '../helpers/scan-helpers.js';
import { connectSignalR, type Received } from '../plugins/scan-hub/hub-test-kit.js';
import { findPostgresBin, skipWithoutPostgres, startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { until } from '../helpers/poll.js';
import { adminToken, call, ciraPortOf, clusterMasterKey, startInstance, stopInstance, untilCiraAccountKnown, type ClusterInstanceProcess } from './cluster-kit.js';

interface ScanView {
  id: string;
  status: string;
  found: number;
}

const MPS = { username: 'mps-cluster', password: 'Mps-P@ssw0rd-cluster' };


describe('devices through three gateway instances on one PostgreSQL', () => {
  let server: PostgresServer | undefined;
  let instances: ClusterInstanceProcess[] = [];
  let token = '';
  const fleets: Fleet[] = [];

  before(async () => {
    if (!findPostgresBin()) return;
    server = await startPostgres();
    const storeUrl = await server.createDatabase();
    const masterKey = clusterMasterKey();
    const config = mergeConfig(SIM_AMT_SETTINGS, {
      plugins: {
        'soap-mps': { enable: false },
        'remote-monitor': { enable: false },
        cira: { enable: true, options: { port: 0, keepAliveIntervalSeconds: 1, keepAliveTimeoutSeconds: 3, forwardSettleMs: 50 } },
        'rest-api': { enable: true, options: { scan: { rmcpWindowMs: 200 } } },
        metrics: { enable: true },
      },
    });
    instances = await Promise.all(['gw-a', 'gw-b', 'gw-c'].map((name) => startInstance(name, { storeUrl, masterKey, config })));
    token = await adminToken(instances[0]!.url);
  });
  /** Scans `address` on `instance`; resolves with its device once every instance lists it and the scan ended. */
  const scanIntoEveryRegistry = async (instance: ClusterInstanceProcess, address: string) => {
    const scan = await call<ScanView>(instance.url, token, 'POST', '/api/scan/start', { range: `${address}/32`, timeoutMs: 3000 });
    assert.equal(scan.status, 202);
    const device = await until('the device is listed on every instance', async () => {
      const lists = await Promise.all(instances.map((i) => call<Array<{ id: string; ipAddress: string }>>(i.url, token, 'GET', '/api/devices')));
      const found = lists.map((l) => l.body.find((d) => d.ipAddress === address));
      return found.every(Boolean) ? found[0] : undefined;
    }, 30_000);
    await until('the scan ended', async () => (await call<ScanView>(instance.url, token, 'GET', `/api/scan/${scan.body.id}`)).body.status !== 'running', 30_000);
    return device!;
  };
  after(async () => {
    for (const fleet of fleets) await fleet.stop().catch(() => undefined);
    for (const instance of instances) await stopInstance(instance, 'SIGKILL').catch(() => undefined);
    await server?.destroy();
  });

  test("a scan runs once, on the instance that accepted it; its events reach another instance's hub; another instance cancels it", async (t) => {
    if (skipWithoutPostgres(t)) return;
    const fleet = await startFleet({ count: 6, base: '127.61.0.1', rmcpPort: SIM_RMCP_PORT, seed: 'cluster-scan' });
    fleets.push(fleet);
    const created = await call(instances[0]!.url, token, 'POST', '/api/credentials', { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true });
    assert.equal(created.status, 201);
    const hub = await connectSignalR(instances[1]!.url, token);
    try {
      const started = await call<ScanView>(instances[0]!.url, token, 'POST', '/api/scan/start', { range: '127.61.0.0/29', timeoutMs: 1000 });
      assert.equal(started.status, 202);
      const done = (received: Received[]) => received.find((r) => r.target === 'ScanCompleted' && r.arg.id === started.body.id);
      const completed = await until('the scan completes on the other instance\'s hub', () => done(hub.received), 30_000);
      assert.equal(completed.arg.found, 6);
      assert.ok(hub.received.some((r) => r.target === 'ScanStarted' && r.arg.id === started.body.id));
      assert.equal(hub.received.filter((r) => r.target === 'DeviceDiscovered').length, 6, 'one discovery per device, from the one instance that scanned');
      const onC = await call<ScanView>(instances[2]!.url, token, 'GET', `/api/scan/${started.body.id}`);
      assert.equal(onC.body.status, 'completed');
      const listed = await call<unknown[]>(instances[2]!.url, token, 'GET', '/api/devices');
      assert.equal(listed.body.length, 6);
      // Each instance counts what happened on it: the scan's events shared with gw-b are gw-a's to count.
      const found = async (instance: ClusterInstanceProcess) => {
        const res = await fetch(`${instance.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
        return Number(/^amtgw_scan_devices_found_total (\d+)$/m.exec(await res.text())?.[1]);
      };
      assert.deepEqual([await found(instances[0]!), await found(instances[1]!)], [6, 0]);
    } finally {
      await hub.connection.stop();
    }
    // A long scan started on one instance is cancelled through another.
    const long = await call<ScanView>(instances[0]!.url, token, 'POST', '/api/scan/start', { range: '127.62.0.0/20', timeoutMs: 3000, concurrency: 4 });
    assert.equal(long.status, 202);
    await until('the others see it running', async () => (await call<ScanView>(instances[2]!.url, token, 'GET', `/api/scan/${long.body.id}`)).body?.status === 'running', 5000);
    const cancelled = await call<ScanView>(instances[2]!.url, token, 'POST', `/api/scan/cancel/${long.body.id}`);
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.status, 'cancelled');
    assert.equal(cancelled.headers.get('x-amtgw-served-by') !== null, true, 'served by the instance running it');
  });

  test('operations on one LAN device from every instance at once: the cluster-wide turn (the gate\'s turn provider) keeps it to one connection at a time', async (t) => {
    if (skipWithoutPostgres(t)) return;
    // Slow answers (150 ms each, as firmware's), so that operations of three instances not taking turns would overlap.
    const fleet = await startFleet({ count: 1, base: '127.68.0.1', rmcpPort: SIM_RMCP_PORT, seed: 'cluster-turns', responseDelayMs: [150, 150] });
    fleets.push(fleet);
    const device = await scanIntoEveryRegistry(instances[1]!, '127.68.0.1');
    const sim = fleet.devices[0]!;
    sim.resetCounters();
    const reads = await Promise.all(Array.from({ length: 9 }, (_, i) => call(instances[i % 3]!.url, token, 'GET', `/api/power/${device.id}`)));
    assert.deepEqual(reads.map((r) => r.status), Array(9).fill(200), JSON.stringify(reads.find((r) => r.status !== 200)?.body));
    const counters = sim.counters();
    assert.ok(counters.connections >= 9, `${counters.connections} connections for 9 operations`);
    assert.equal(counters.peakOpenConnections, 1, 'one connection at a time from the whole cluster');
    // Without credentials (no default one), a diagnostic exchange holds no sign-in lease: only the
    // device's cluster-wide turn keeps it apart from the power reads other instances run meanwhile.
    const fleetCredential = (await call<Array<{ id: string; name: string }>>(instances[0]!.url, token, 'GET', '/api/credentials')).body.find((c) => c.name === 'fleet')!;
    const setDefault = async (isDefault: boolean) => {
      const res = await call(instances[0]!.url, token, 'PUT', `/api/credentials/${fleetCredential.id}`, { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      await until('every instance sees the change', async () => {
        const lists = await Promise.all(instances.map((i) => call<Array<{ name: string; isDefault: boolean }>>(i.url, token, 'GET', '/api/credentials')));
        return lists.every((l) => l.body.find((c) => c.name === 'fleet')?.isDefault === isDefault);
      }, 2000);
    };
    await setDefault(false);
    try {
      sim.resetCounters();
      const mixed = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          i % 2 === 0
            ? call<{ reachable: boolean; authenticated: boolean }>(instances[i % 3]!.url, token, 'GET', `/api/test/test-wsman/${device.id}`)
            : call(instances[i % 3]!.url, token, 'GET', `/api/power/${device.id}`),
        ),
      );
      assert.deepEqual(mixed.map((r) => r.status), Array(12).fill(200), JSON.stringify(mixed.find((r) => r.status !== 200)?.body));
      for (const check of mixed.filter((_, i) => i % 2 === 0)) assert.deepEqual([(check.body as { reachable: boolean }).reachable, (check.body as { authenticated: boolean }).authenticated], [true, false]);
      const after = sim.counters();
      assert.ok(after.connections >= 12, `${after.connections} connections for 12 operations`);
      assert.equal(after.peakOpenConnections, 1, 'one connection at a time from the whole cluster, credentials or not');
    } finally {
      await setDefault(true);
    }
    assert.equal(sim.lockedOut, false);
  });

  test('wrong credentials scanned from every instance at once: no device is locked out; reads from every instance at once: one connection at a time', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const fleet = await startFleet({ count: 4, base: '127.63.0.1', rmcpPort: SIM_RMCP_PORT, seed: 'cluster-lockout', lockoutThreshold: 10 });
    fleets.push(fleet);
    // Twelve wrong credentials: one instance alone spends at most the budget (10 - 2); three
    // instances that did not count together would spend three budgets.
    for (let i = 0; i < 12; i++) {
      const res = await call(instances[i % 3]!.url, token, 'POST', '/api/credentials', { name: `wrong-${i}`, username: 'admin', password: `Wrong-P@ss-${i}` });
      assert.equal(res.status, 201);
    }
    await until('every instance has the twelve', async () => {
      const counts = await Promise.all(instances.map(async (i) => (await call<Array<{ name: string }>>(i.url, token, 'GET', '/api/credentials')).body.filter((c) => c.name.startsWith('wrong-')).length));
      return counts.every((n) => n === 12);
    }, 2000);
    const scans = await Promise.all(instances.map((i) => call<ScanView>(i.url, token, 'POST', '/api/scan/start', { range: '127.63.0.0/29', timeoutMs: 2000 })));
    for (const scan of scans) assert.equal(scan.status, 202, JSON.stringify(scan.body));
    await until('the three scans end', async () => {
      const states = await Promise.all(scans.map((s, i) => call<ScanView>(instances[i]!.url, token, 'GET', `/api/scan/${s.body.id}`)));
      return states.every((s) => s.body.status !== 'running');
    }, 60_000);
    for (const device of fleet.devices) {
      const counters = device.counters();
      assert.equal(device.lockedOut, false, `${device.address} locked out`);
      assert.ok(counters.authFailures <= 8, `${device.address}: ${counters.authFailures} failed logins, more than one budget`);
    }
    // Connections are counted on reads: the three scans at once probed addresses no registry knew yet,
    // which take each instance's own turn only (plugins/devices/README.md, "In a cluster").
    const good = await call(instances[0]!.url, token, 'POST', '/api/credentials', { name: 'right', username: 'admin', password: 'P@ssw0rd1' });
    assert.equal(good.status, 201);
    for (const device of fleet.devices) {
      device.unlock();
      device.resetCounters();
    }
    const listed = await call<Array<{ id: string; ipAddress: string }>>(instances[1]!.url, token, 'GET', '/api/devices');
    const target = listed.body.find((d) => d.ipAddress === fleet.devices[0]!.address)!;
    await until('every instance knows the right credential', async () => {
      const all = await Promise.all(instances.map(async (i) => (await call<Array<{ name: string }>>(i.url, token, 'GET', '/api/credentials')).body.some((c) => c.name === 'right')));
      return all.every(Boolean);
    }, 2000);
    const reads = await Promise.all(Array.from({ length: 12 }, (_, i) => call(instances[i % 3]!.url, token, 'GET', `/api/power/${target.id}`)));
    assert.deepEqual(reads.map((r) => r.status), Array(12).fill(200), JSON.stringify(reads.find((r) => r.status !== 200)?.body));
    const counters = fleet.devices[0]!.counters();
    assert.ok(counters.connections >= 12, `${counters.connections} connections for 12 reads`);
    assert.equal(counters.peakOpenConnections, 1, 'one connection at a time from the whole cluster');
  });

  test("a scan's probe of a device another instance is working on waits for the cluster-wide turn", async (t) => {
    if (skipWithoutPostgres(t)) return;
    // Slow answers (400 ms each): instance B's power reads keep a connection to the device open most of the time.
    const fleet = await startFleet({ count: 1, base: '127.69.0.3', rmcpPort: SIM_RMCP_PORT, seed: 'cluster-probe-turns', responseDelayMs: [400, 400] });
    fleets.push(fleet);
    const [a, b] = [instances[0]!, instances[1]!];
    // The suite's earlier tests left a working credential; alone, this test stores one.
    if ((await call<unknown[]>(a.url, token, 'GET', '/api/credentials')).body.length === 0) {
      assert.equal((await call(a.url, token, 'POST', '/api/credentials', { name: 'probe-turns', username: 'admin', password: 'P@ssw0rd1', isDefault: true })).status, 201);
    }
    const device = await scanIntoEveryRegistry(b, '127.69.0.3');
    const sim = fleet.devices[0]!;
    sim.resetCounters();
    const statuses: number[] = [];
    // Three rounds: B reads the device back to back for three seconds (a connection open nearly all
    // the time) while A scans a range around it; A's probe of the device comes early in its scan.
    for (let round = 0; round < 3; round++) {
      const until3s = Date.now() + 3000;
      const readsOnB = (async () => {
        while (Date.now() < until3s) statuses.push((await call(b.url, token, 'GET', `/api/power/${device.id}`)).status);
      })();
      await new Promise((r) => setTimeout(r, 500));
      const scan = await call<ScanView>(a.url, token, 'POST', '/api/scan/start', { range: '127.69.0.0/29', timeoutMs: 3000 });
      assert.equal(scan.status, 202, JSON.stringify(scan.body));
      await readsOnB;
      await until('the scan ended', async () => (await call<ScanView>(a.url, token, 'GET', `/api/scan/${scan.body.id}`)).body.status !== 'running', 30_000);
    }
    const counters = sim.counters();
    assert.equal(counters.peakOpenConnections, 1, 'one connection at a time from the whole cluster, probes included');
    assert.ok(statuses.length >= 9, `${statuses.length} reads on B during the scans`);
    assert.deepEqual(statuses, Array(statuses.length).fill(200));
    assert.ok(counters.connections >= statuses.length + 3, `${counters.connections} connections for ${statuses.length} reads and three scans`);
  });

  test('a CIRA device is managed through an instance that does not hold its tunnel, and after kill -9 of that instance through the next', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const account = await call(instances[0]!.url, token, 'POST', '/api/cira/accounts', MPS);
    assert.equal(account.status, 201, JSON.stringify(account.body));
    await untilCiraAccountKnown(instances, token, MPS.username);
    const holder = instances[2]!;
    const caOf = async (instance: ClusterInstanceProcess) => (await call<{ pem: string }>(instance.url, token, 'GET', '/api/cira/certificate')).body.pem;
    const fleet = await startFleet({
      count: 1,
      base: '127.64.0.1',
      rmcpPort: 0,
      seed: 'cluster-cira',
      cira: { host: '127.0.0.1', port: ciraPortOf(holder), username: MPS.username, password: MPS.password, ca: await caOf(holder), keepAliveSeconds: 1, reconnectMs: 0 },
    });
    fleets.push(fleet);
    const device = fleet.devices[0]!;
    await device.cira!.waitFor('connected');
    const deviceId = await until('the device is listed on another instance', async () => {
      const listed = await call<Array<{ id: string; uuid: string | null; connections?: string[] }>>(instances[0]!.url, token, 'GET', '/api/devices');
      return listed.body.find((d) => d.connections?.includes('cira'))?.id;
    }, 10_000);
    const read = await until('a power read through gw-a', async () => {
      const res = await call<{ powerState?: number }>(instances[0]!.url, token, 'GET', `/api/power/${deviceId}`);
      return res.status === 200 ? res : undefined;
    }, 20_000);
    assert.ok(read.headers.get('x-amtgw-served-by'), 'forwarded to the instance holding the tunnel');
    const tunnels = await call<Array<{ deviceId: string; instance: string }>>(instances[1]!.url, token, 'GET', '/api/cira/connections');
    assert.deepEqual(tunnels.body.map((c) => [c.deviceId, c.instance]), [[deviceId, 'gw-c']]);

    // The holder dies; the device dials another instance; it is managed through the third.
    holder.process.child.kill('SIGKILL');
    await holder.process.exited;
    const failing = await call<{ type: string }>(instances[0]!.url, token, 'GET', `/api/power/${deviceId}`);
    assert.equal(failing.status, 503, 'forwarded to a dead instance: 503 at once');
    // As HAProxy would send its redial: to another instance.
    const next = instances[1]!;
    await device.cira!.stop();
    Object.assign(device.cira!.options, { port: ciraPortOf(next), ca: await caOf(next) });
    device.cira!.start();
    await device.cira!.waitFor('connected');
    const again = await until('managed through gw-a again', async () => {
      const res = await call(instances[0]!.url, token, 'GET', `/api/power/${deviceId}`);
      return res.status === 200 ? res : undefined;
    }, 30_000);
    assert.ok(again.headers.get('x-amtgw-served-by'));
  });
});
