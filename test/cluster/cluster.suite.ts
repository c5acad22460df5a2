/**
 * Extra suite (`npm run test:cluster`): three gateway processes on one real PostgreSQL. They answer
 * alike, see each other's writes within a second, list each other in GET /api/cluster, lose no
 * acknowledged write to kill -9, and ride out a PostgreSQL restart. Skips without PostgreSQL unless
 * AMTGW_REQUIRE_POSTGRES=1.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { findPostgresBin, skipWithoutPostgres, startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { until } from '../helpers/poll.js';
import { adminToken, call, clusterMasterKey, startInstance, stopInstance, type ClusterInstanceProcess } from './cluster-kit.js';
import { Agent, request } from 'undici';
import { startFleet } from '../sim/index.js';
import { ADMIN_PASSWORD } from '../helpers/gateway-harness.js';
import { mergeConfig } from '../../core/config/load-config.js';
import { SIM_AMT_SETTINGS, SIM_RMCP_PORT } from '../helpers/scan-helpers.js';
import { startReceiver } from '../plugins/soap-mps/notification-receiver.js';
import { ADMIN, basicHeader, envelope, soapPoster, soapServiceUrl } from '../plugins/soap-mps/soap-test-gateway.js';

interface Credential {
  id: string;
  name: string;
}

describe('three gateway instances on one PostgreSQL', () => {
  let server: PostgresServer | undefined;
  let instances: ClusterInstanceProcess[] = [];
  let token = '';
  const masterKey = clusterMasterKey();
  let storeUrl = '';

  before(async () => {
    if (!findPostgresBin()) return;
    server = await startPostgres();
    storeUrl = await server.createDatabase();
    // Started together: the first to take the advisory lock migrates, the others wait for it.
    const config = mergeConfig(SIM_AMT_SETTINGS, {
      plugins: {
        'soap-mps': { enable: true, options: { port: 0, delivery: { backoffMs: 100, timeoutMs: 10_000, maxAttempts: 5 } } },
        'remote-monitor': { enable: true, options: { intervalSeconds: 1, missedProbesOffline: 1, probe: { rmcpWindowMs: 200, connectTimeoutMs: 300 } } },
      },
    });
    instances = await Promise.all(['gw-a', 'gw-b', 'gw-c'].map((name) => startInstance(name, { storeUrl, masterKey, config })));
    token = await adminToken(instances[0]!.url);
  });
  after(async () => {
    for (const instance of instances) await stopInstance(instance, 'SIGKILL').catch(() => undefined);
    await server?.destroy();
  });

  test('every instance answers alike: a token from one works on all, the same lists, each names itself', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const answers = await Promise.all(instances.map((i) => call<unknown[]>(i.url, token, 'GET', '/api/devices')));
    for (const answer of answers) assert.equal(answer.status, 200);
    assert.deepEqual(answers[1]!.body, answers[0]!.body);
    assert.deepEqual(answers[2]!.body, answers[0]!.body);
    for (const instance of instances) {
      const health = (await (await fetch(`${instance.url}/api/health`)).json()) as { instance: string };
      assert.equal(health.instance, instance.name);
    }
    const cluster = await call<{ instances: Array<{ name: string; state: string; url: string }> }>(instances[1]!.url, token, 'GET', '/api/cluster');
    assert.equal(cluster.status, 200);
    assert.deepEqual(cluster.body.instances.filter((i) => i.state === 'up').map((i) => i.name).sort(), ['gw-a', 'gw-b', 'gw-c']);
    for (const i of cluster.body.instances) assert.match(i.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  });

  test('a write acknowledged by one instance is seen by the others within a second', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const created = await call<Credential>(instances[0]!.url, token, 'POST', '/api/credentials', { name: 'seen-everywhere', username: 'admin', password: 'P@ssw0rd-1' });
    assert.equal(created.status, 201);
    const start = Date.now();
    for (const instance of instances.slice(1)) {
      await until(`${instance.name} lists the credential`, async () => (await call<Credential[]>(instance.url, token, 'GET', '/api/credentials')).body.some((c) => c.id === created.body.id), 1000);
    }
    assert.ok(Date.now() - start < 1500);
    // Its audit record is read on every instance, under one numbering.
    const trails = await Promise.all(instances.map((i) => call<Array<{ id: string; action: string; target: string }>>(i.url, token, 'GET', '/api/audit?action=credential.create')));
    for (const trail of trails) assert.deepEqual(trail.body.find((r) => r.target === created.body.id)?.action, 'credential.create');
    assert.deepEqual(trails[1]!.body.map((r) => r.id), trails[0]!.body.map((r) => r.id));
    // Records written at once on the three instances each keep their own number: none overwrites another.
    const burst = await Promise.all(Array.from({ length: 12 }, (_, i) => call<Credential>(instances[i % 3]!.url, token, 'POST', '/api/credentials', { name: `burst-${i}`, username: 'admin', password: 'P@ssw0rd-1' })));
    const burstIds = new Set(burst.map((r) => r.body.id));
    const audited = await call<Array<{ id: string; target: string }>>(instances[2]!.url, token, 'GET', '/api/audit?action=credential.create&limit=100');
    const kept = audited.body.filter((r) => burstIds.has(r.target));
    assert.equal(kept.length, 12, 'twelve records for twelve creations');
    assert.equal(new Set(kept.map((r) => r.id)).size, 12);
    // A user made on one instance signs in on another; a token revoked on one stops working on all.
    const user = await call(instances[1]!.url, token, 'POST', '/api/users', { username: 'ops', password: 'Ops-P@ssw0rd-1', permissions: ['devices:read'] });
    assert.equal(user.status, 201, JSON.stringify(user.body));
    const login = await fetch(`${instances[2]!.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'ops', password: 'Ops-P@ssw0rd-1' }) });
    assert.equal(login.status, 200);
    const opsToken = ((await login.json()) as { token: string }).token;
    assert.equal((await call(instances[0]!.url, opsToken, 'GET', '/api/devices')).status, 200);
    assert.equal((await call(instances[0]!.url, opsToken, 'POST', '/api/auth/logout')).status, 204);
    await until('the revoked token is refused everywhere', async () => {
      const statuses = await Promise.all(instances.map((i) => call(i.url, opsToken, 'GET', '/api/devices').then((r) => r.status)));
      return statuses.every((s) => s === 401);
    }, 1000);
  });

  test('guesses spread over the three instances get no more than guesses at one: the throttle counts every instance\'s attempts, each from its start', async (t) => {
    if (skipWithoutPostgres(t)) return;
    // One attacker's address, of its own, so that no other test's sign-ins share its counts.
    const attacker = new Agent({ localAddress: '127.0.0.9' });
    const guess = async (instance: ClusterInstanceProcess, n: number) => {
      const res = await request(`${instance.url}/api/auth/login`, { method: 'POST', dispatcher: attacker, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: `guess-${n}` }) });
      await res.body.dump();
      return { status: res.statusCode, retryAfter: Number(res.headers['retry-after'] ?? 0) };
    };
    try {
      // 30 at once, 10 at each instance: each counted from its start in the whole cluster, so most are refused at once.
      const burst = await Promise.all(Array.from({ length: 30 }, (_, n) => guess(instances[n % 3]!, n)));
      const checked = burst.filter((r) => r.status === 401).length;
      assert.ok(checked >= 1 && checked <= 10, `${checked} of 30 simultaneous guesses had their password checked`);
      assert.ok(burst.every((r) => r.status === 401 || r.status === 429), JSON.stringify(burst.map((r) => r.status)));
      // Then a guess at each instance at a time until the name is refused for its window: maxFailures (10) checked in all, not 10 per instance.
      let total = checked;
      for (let round = 0; round < 20; round++) {
        const results = await Promise.all(instances.slice(0, 3).map((instance, i) => guess(instance, 100 + round * 3 + i)));
        total += results.filter((r) => r.status === 401).length;
        if (results.every((r) => r.status === 429 && r.retryAfter > 1)) break;
        if (results.some((r) => r.status === 429 && r.retryAfter === 1)) await new Promise((r) => setTimeout(r, 300));
      }
      assert.ok(total <= 10, `${total} guesses checked across three instances; one instance allows 10`);
      const last = await Promise.all(instances.slice(0, 3).map((instance) => guess(instance, 999)));
      assert.ok(last.every((r) => r.status === 429 && r.retryAfter > 60), `refused everywhere for the window: ${JSON.stringify(last)}`);
      // The admin signs in from its own address all the same.
      assert.equal((await fetch(`${instances[2]!.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }) })).status, 200);
    } finally {
      await attacker.close();
    }
  });

  test('the online monitor probes each device from one instance, and a SOAP subscriber hears of each flip once', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const fleet = await startFleet({ count: 12, base: '127.67.0.1', rmcpPort: SIM_RMCP_PORT, seed: 'cluster-monitor' });
    const receiver = await startReceiver();
    let fleetStopped = false;
    try {
      const scan = await call<{ id: string }>(instances[0]!.url, token, 'POST', '/api/scan/start', { range: '127.67.0.0/28', timeoutMs: 1000 });
      assert.equal(scan.status, 202);
      await until('the twelve are listed everywhere', async () => {
        const counts = await Promise.all(instances.map(async (i) => (await call<unknown[]>(i.url, token, 'GET', '/api/devices')).body.length));
        return counts.every((n) => n >= 12);
      }, 20_000);
      await new Promise((r) => setTimeout(r, 2000)); // the monitors pick the new devices up
      for (const device of fleet.devices) device.resetCounters();
      await new Promise((r) => setTimeout(r, 5000));
      const pings = fleet.devices.map((d) => d.counters().rmcpPings);
      // One instance probing each device, once a second: about 5 each; three would send about 15.
      for (const [i, n] of pings.entries()) assert.ok(n >= 2 && n <= 8, `${fleet.devices[i]!.address}: ${n} pings in 5 s`);

      // Subscribed through one instance; each device's offline flip is seen by the instance probing it.
      const lines = instances[1]!.process.output().split('\n').filter((l) => l.startsWith('{'));
      const post = soapPoster(soapServiceUrl(lines).url, basicHeader(ADMIN.username, ADMIN.password));
      const subscribed = await post(envelope(`<m:SubscribeForNotifications><m:Delivery>${receiver.url}</m:Delivery></m:SubscribeForNotifications>`));
      assert.equal(subscribed.status, 200, subscribed.text);
      await new Promise((r) => setTimeout(r, 500)); // the subscription reaches the other instances
      await fleet.stop();
      fleetStopped = true;
      await receiver.waitFor(12, 20_000);
      await new Promise((r) => setTimeout(r, 3000)); // room for duplicates, were any sent
      const offline = receiver.received.filter((n) => n.fields.State === '1').map((n) => String(n.fields.DeviceFqdn));
      assert.equal(offline.length, 12, `${offline.length} offline notifications for 12 devices`);
      assert.equal(new Set(offline).size, 12, 'one per device');
    } finally {
      if (!fleetStopped) await fleet.stop();
      await receiver.close();
    }
  });

  test('kill -9 in the middle of a stream of writes loses none that were acknowledged; the others see it down', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const victim = instances[2]!;
    const acknowledged: string[] = [];
    let stop = false;
    const writer = (async () => {
      for (let i = 0; !stop; i++) {
        try {
          const res = await call<Credential>(victim.url, token, 'POST', '/api/credentials', { name: `stream-${i}`, username: 'admin', password: 'P@ssw0rd-1' });
          if (res.status === 201) acknowledged.push(res.body.id);
        } catch {
          return; // the connection died with the process
        }
      }
    })();
    await until('some writes acknowledged', () => acknowledged.length >= 20, 20_000);
    victim.process.child.kill('SIGKILL');
    await victim.process.exited;
    stop = true;
    await writer;
    const listed = await call<Credential[]>(instances[0]!.url, token, 'GET', '/api/credentials');
    const ids = new Set(listed.body.map((c) => c.id));
    const lost = acknowledged.filter((id) => !ids.has(id));
    assert.deepEqual(lost, [], `${lost.length} of ${acknowledged.length} acknowledged writes lost`);
    await until('gw-c is down', async () => {
      const cluster = await call<{ instances: Array<{ name: string; state: string }> }>(instances[0]!.url, token, 'GET', '/api/cluster');
      return cluster.body.instances.find((i) => i.name === 'gw-c' && i.state === 'down');
    }, 8000);
    await stopInstance(victim, 'SIGKILL');
    instances = instances.slice(0, 2);
  });

  test('PostgreSQL restarting under load: writes during the outage get 503 and leave nothing; then both instances serve again', async (t) => {
    if (skipWithoutPostgres(t)) return;
    await server!.stop('immediate');
    const during = await call<{ type: string; detail: string }>(instances[0]!.url, token, 'POST', '/api/credentials', { name: 'during-outage', username: 'admin', password: 'P@ssw0rd-1' });
    assert.equal(during.status, 503);
    assert.equal(during.body.type, 'urn:amt-gateway:problem:GW_ERR_STORE_UNAVAILABLE');
    assert.doesNotMatch(during.body.detail, /127\.0\.0\.1|postgres:/, 'the answer does not tell where the database is');
    const ready = await fetch(`${instances[0]!.url}/api/health/ready`);
    assert.equal(ready.status, 503, 'not ready while the store cannot be reached');
    await server!.start();
    await until('writes go through again', async () => (await call(instances[0]!.url, token, 'POST', '/api/credentials', { name: 'after-outage', username: 'admin', password: 'P@ssw0rd-1' })).status === 201, 20_000);
    await until('the other instance sees it', async () => (await call<Credential[]>(instances[1]!.url, token, 'GET', '/api/credentials')).body.some((c) => c.name === 'after-outage'), 10_000);
    const listed = await call<Credential[]>(instances[1]!.url, token, 'GET', '/api/credentials');
    assert.ok(!listed.body.some((c) => c.name === 'during-outage'), 'the refused write left nothing');
    assert.equal((await fetch(`${instances[0]!.url}/api/health/ready`)).status, 200);
  });
});
