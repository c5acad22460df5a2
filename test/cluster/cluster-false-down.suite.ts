/**
 * Extra suite (`npm run test:cluster`): instances wrongly taken for unavailable. One taken for down while it was only paused (its
 * heartbeat late: SIGSTOP past downAfterSeconds, as a busy event loop or a long GC would) still
 * holds its CIRA tunnels. The others clear its tunnel records meanwhile; once it runs again it
 * records them again, and the device is managed through the other instance as before, without
 * redialling. One that began serving since another last read the instances' URLs is reached at once.
 * Skips without PostgreSQL unless AMTGW_REQUIRE_POSTGRES=1.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { startFleet, type Fleet } from '../sim/index.js';
import { mergeConfig } from '../../core/config/load-config.js';
import { SIM_AMT_SETTINGS } from '../helpers/scan-helpers.js';
import { findPostgresBin, skipWithoutPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { until } from '../helpers/poll.js';
import { adminToken, call, ciraPortOf, clusterStore, startInstance, stopInstance, untilCiraAccountKnown, type ClusterInstanceProcess } from './cluster-kit.js';

const MPS = { username: 'mps-false-down', password: 'Mps-P@ssw0rd-false-down' };
const DOWN_AFTER_SECONDS = 3;

describe('an instance taken for down while it was only paused', () => {
  let server: PostgresServer | undefined;
  let instances: ClusterInstanceProcess[] = [];
  let fleet: Fleet | undefined;
  let token = '';

  before(async () => {
    if (!findPostgresBin()) return;
    let storeUrl: string, masterKey: string;
    ({ server, storeUrl, masterKey } = await clusterStore());
    const config = mergeConfig(SIM_AMT_SETTINGS, {
      plugins: {
        // The tunnel outlives the pause on the gateway's side: its keep-alive timeout is well past it.
        cira: { enable: true, options: { port: 0, keepAliveIntervalSeconds: 1, keepAliveTimeoutSeconds: 60, forwardSettleMs: 50 } },
      },
    });
    instances = await Promise.all(['gw-a', 'gw-b'].map((name) => startInstance(name, { storeUrl, masterKey, config, downAfterSeconds: DOWN_AFTER_SECONDS })));
    token = await adminToken(instances[0]!.url);
  });
  after(async () => {
    await fleet?.stop().catch(() => undefined);
    for (const instance of instances) {
      instance.process.child.kill('SIGCONT');
      await stopInstance(instance, 'SIGKILL').catch(() => undefined);
    }
    await server?.destroy();
  });

  test('its tunnels are listed again and its device managed through the other instance, without the device redialling', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const [other, holder] = instances as [ClusterInstanceProcess, ClusterInstanceProcess];
    assert.equal((await call(other.url, token, 'POST', '/api/credentials', { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true })).status, 201);
    assert.equal((await call(other.url, token, 'POST', '/api/cira/accounts', MPS)).status, 201);
    await untilCiraAccountKnown([holder], token, MPS.username);
    const ca = (await call<{ pem: string }>(holder.url, token, 'GET', '/api/cira/certificate')).body.pem;
    // The simulated device never gives up a tunnel for keep-alive replies that are late, as AMT waits out its own timeout.
    fleet = await startFleet({ count: 1, base: '127.66.0.1', rmcpPort: 0, seed: 'cluster-false-down', cira: { host: '127.0.0.1', port: ciraPortOf(holder), ...MPS, ca, keepAliveSeconds: 1, reconnectMs: 0 } });
    const device = fleet.devices[0]!;
    await device.cira!.waitFor('connected');
    const listedOnOther = async () => (await call<Array<{ deviceId: string; instance: string }>>(other.url, token, 'GET', '/api/cira/connections')).body.map((c) => [c.deviceId, c.instance]);
    const ciraOnOther = async (deviceId: string) =>
      (await call<{ connections?: string[] }>(other.url, token, 'GET', `/api/devices/${deviceId}`)).body.connections?.includes('cira') ?? false;
    const deviceId = await until('the device is listed with its tunnel on the other instance', async () => {
      const listed = await call<Array<{ id: string; connections?: string[] }>>(other.url, token, 'GET', '/api/devices');
      return listed.body.find((d) => d.connections?.includes('cira'))?.id;
    }, 20_000);
    await until('a power read through the other instance', async () => (await call(other.url, token, 'GET', `/api/power/${deviceId}`)).status === 200, 20_000);
    assert.deepEqual(await listedOnOther(), [[deviceId, 'gw-b']]);
    const connects = device.cira!.counters.connects;

    // Paused past downAfterSeconds: the other instance takes it for down and clears its tunnel.
    holder.process.child.kill('SIGSTOP');
    try {
      await until('the holder is taken for down', async () => {
        const cluster = await call<{ instances: Array<{ name: string; state: string }> }>(other.url, token, 'GET', '/api/cluster');
        return cluster.body.instances.find((i) => i.name === 'gw-b')?.state === 'down';
      }, 10_000);
      await until('its tunnel is cleared and the device shown without cira', async () => (await listedOnOther()).length === 0 && !(await ciraOnOther(deviceId)), 5000);
      await sleep(1000);
    } finally {
      holder.process.child.kill('SIGCONT');
    }

    await until('the tunnel is listed again on the other instance', async () => (await listedOnOther()).length === 1, 10_000);
    assert.deepEqual(await listedOnOther(), [[deviceId, 'gw-b']]);
    await until('the device is shown with cira again', () => ciraOnOther(deviceId), 5000);
    const read = await until('a power read through the other instance again', async () => {
      const res = await call(other.url, token, 'GET', `/api/power/${deviceId}`);
      return res.status === 200 ? res : undefined;
    }, 5000);
    assert.ok(read.headers.get('x-amtgw-served-by'), 'forwarded to the instance holding the tunnel');
    assert.equal(device.cira!.counters.connects, connects, 'the device did not redial');
    assert.equal(device.cira!.counters.disconnects, 0, 'the tunnel was never dropped');
    assert.equal(device.cira!.status, 'connected');
  });
});

describe('an instance that began serving since another last read the URLs', () => {
  let server: PostgresServer | undefined;
  let instances: ClusterInstanceProcess[] = [];
  let fleet: Fleet | undefined;

  after(async () => {
    await fleet?.stop().catch(() => undefined);
    for (const instance of instances) await stopInstance(instance, 'SIGKILL').catch(() => undefined);
    await server?.destroy();
  });

  test("a request for its device arriving at once at the other is forwarded to it, not refused as if it were down", async (t) => {
    if (skipWithoutPostgres(t)) return;
    let storeUrl: string, masterKey: string;
    ({ server, storeUrl, masterKey } = await clusterStore());
    // Heartbeats (and the reads of the URLs with them) a minute apart: the first instance reads the
    // URLs when it starts serving and not again during this test.
    const config = mergeConfig(SIM_AMT_SETTINGS, {
      cluster: { heartbeatSeconds: 60 },
      plugins: { cira: { enable: true, options: { port: 0, keepAliveIntervalSeconds: 1, keepAliveTimeoutSeconds: 60, forwardSettleMs: 50 } } },
    });
    const first = await startInstance('gw-a', { storeUrl, masterKey, config, downAfterSeconds: 180 });
    instances.push(first);
    const token = await adminToken(first.url);
    assert.equal((await call(first.url, token, 'POST', '/api/credentials', { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true })).status, 201);
    assert.equal((await call(first.url, token, 'POST', '/api/cira/accounts', MPS)).status, 201);
    const started = Date.now();
    const second = await startInstance('gw-b', { storeUrl, masterKey, config, downAfterSeconds: 180 });
    instances.push(second);
    await untilCiraAccountKnown([second], token, MPS.username);
    const ca = (await call<{ pem: string }>(second.url, token, 'GET', '/api/cira/certificate')).body.pem;
    fleet = await startFleet({ count: 1, base: '127.66.1.1', rmcpPort: 0, seed: 'cluster-new-url', cira: { host: '127.0.0.1', port: ciraPortOf(second), ...MPS, ca, keepAliveSeconds: 1, reconnectMs: 0 } });
    await fleet.devices[0]!.cira!.waitFor('connected');
    // The first instance reads the instances' rows (its heartbeat): the second is up.
    await until('the first instance sees the second up', async () => {
      const cluster = await call<{ instances: Array<{ name: string; state: string }> }>(first.url, token, 'GET', '/api/cluster');
      return cluster.body.instances.find((i) => i.name === 'gw-b')?.state === 'up';
    }, 10_000);
    const deviceId = await until('the first instance lists the tunnel', async () => {
      const listed = await call<Array<{ deviceId: string }>>(first.url, token, 'GET', '/api/cira/connections');
      return listed.body[0]?.deviceId;
    }, 10_000);
    const read = await call<{ type?: string }>(first.url, token, 'GET', `/api/power/${deviceId}`);
    assert.ok(Date.now() - started < 50_000, 'within the first instance\'s heartbeat period: it had not read the URLs again');
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.ok(read.headers.get('x-amtgw-served-by'), 'forwarded to the instance holding the tunnel');
  });
});
