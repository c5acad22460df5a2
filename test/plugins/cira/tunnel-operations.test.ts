/**
 * Device operations through a CIRA tunnel run on the main thread over the APF channel: no worker
 * thread and no loopback relay take part, and at most `tunnelOperations.concurrency` run at once,
 * with `maxWaiting` queued behind them and the rest refused with 503.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Piscina } from 'piscina';
import { startFleet, type Fleet } from '../../sim/index.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';
import type { Device } from '../../../plugins/rest-api/api.js';
import { createTunnelOperationBound } from '../../../plugins/cira/tunnel-operations.js';
import { ciraPort } from './gateway-cira-helpers.js';
import { until } from '../../helpers/poll.js';

const MPS = { username: 'mps-ops', password: 'Mps-P@ssw0rd-ops' };
const CIRA_BASE = '127.41.7.1';
/** Tasks that talk to one device; none of them may reach a worker thread for a tunnelled device. */
const DEVICE_TASKS = /\/(power-read|power-change|inventory|event-log|wsman-check|interrogate)\.[jt]s$/;

describe('device operations through a CIRA tunnel', () => {
  let gw: TestGateway;
  let token: string;
  let fleet: Fleet;
  const logs: string[] = [];
  const workerTasks: string[] = [];
  const originalRun = Piscina.prototype.run;

  const listed = async (uuid: string): Promise<Device | undefined> =>
    ((await (await gw.request('GET', '/api/devices', { token })).json()) as Device[]).find((d) => d.uuid === uuid);

  before(async () => {
    // The worker pool refuses every device task: a tunnelled operation succeeds only if it never goes there.
    Piscina.prototype.run = function (this: Piscina, task: unknown, options?: Parameters<Piscina['run']>[1]) {
      const file = (task as { file?: string } | null)?.file ?? '';
      if (DEVICE_TASKS.test(file)) {
        workerTasks.push(file);
        return Promise.reject(new Error('device task sent to a worker thread'));
      }
      return originalRun.call(this, task, options);
    } as Piscina['run'];
    gw = await startTestGateway({
      plugins: ['rest-api', 'remote-monitor', 'power-mgmt', 'cira'],
      logs,
      overrides: mergeConfig(SIM_AMT_SETTINGS, {
        plugins: {
          'power-mgmt': { options: { device: { connectTimeoutMs: 1_000, requestTimeoutMs: 1_500 } } },
          cira: { options: { port: 0, keepAliveIntervalSeconds: 5, keepAliveTimeoutSeconds: 15, forwardSettleMs: 50, tunnelOperations: { concurrency: 2, maxWaiting: 2 } } },
        },
      }),
    });
    token = await gw.login();
    await createCredential(gw, token, { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true });
    const account = await gw.request('POST', '/api/cira/accounts', { token, body: MPS });
    assert.equal(account.status, 201, await account.text());
    const ca = ((await (await gw.request('GET', '/api/cira/certificate', { token })).json()) as { pem: string }).pem;
    fleet = await startFleet({
      count: 6,
      base: CIRA_BASE,
      rmcpPort: 0,
      seed: 'cira-ops',
      tlsEvery: 6,
      cira: { host: '127.0.0.1', port: ciraPort(logs), username: MPS.username, password: MPS.password, ca, keepAliveSeconds: 5, reconnectMs: 0 },
    });
  });
  after(async () => {
    Piscina.prototype.run = originalRun;
    await fleet?.stop();
    await gw?.cleanup();
  });

  test('reads, power, hardware, event log and test-wsman of a tunnelled device succeed with no device task in a worker thread', async () => {
    for (const device of fleet.devices) await device.cira!.waitFor('connected');
    const plain = fleet.devices[0];
    const tls = fleet.devices[5];
    await until('every device is read through its tunnel (HTTP, and TLS inside the channel)', async () => {
      const all = await Promise.all(fleet.devices.map((d) => listed(d.config.uuid)));
      return all.every((d) => d?.hostname);
    });
    const read = { a: (await listed(plain!.config.uuid))!, b: (await listed(tls!.config.uuid))! };
    assert.equal(read.a.authStatus, 'ok');
    assert.equal(read.b.tlsFingerprint, tls!.certificateFingerprint);
    const id = read.a.id;
    const power = await gw.request('GET', `/api/power/${id}`, { token });
    assert.equal(power.status, 200, await power.clone().text());
    const change = await gw.request('POST', `/api/power/${id}`, { token, body: { action: 'off' } });
    assert.equal(change.status, 200, await change.clone().text());
    assert.equal(plain!.state.powerState, 8);
    assert.equal((await gw.request('GET', `/api/monitor/${id}/hardware`, { token })).status, 200);
    assert.equal((await gw.request('GET', `/api/monitor/${id}/events`, { token })).status, 200);
    const check = await gw.request('GET', `/api/test/test-wsman/${tls!.address}`, { token });
    const body = (await check.json()) as { authenticated: boolean; port: number; tls: boolean };
    assert.deepEqual([body.authenticated, body.port, body.tls], [true, 16993, true]);
    assert.deepEqual(workerTasks, [], 'no device task went to the worker pool');
  });

  test('at most `concurrency` tunnelled operations run at once, `maxWaiting` queue, the rest get 503 at once; /api/health stays responsive', async () => {
    // Operations on one device take turns in its sign-in memory: the bound shows across devices.
    const stalled = fleet.devices.slice(0, 5);
    const ids = await Promise.all(stalled.map(async (d) => (await listed(d.config.uuid))!.id));
    for (const device of stalled) device.setMisbehaviour('stall');
    // What a fragile device sees: never more than two channels of its own at once (the one an
    // operation uses and one opened ahead or still closing), however many requests queue for it.
    let mostPerDevice = 0;
    const sampler = setInterval(() => void (mostPerDevice = Math.max(mostPerDevice, ...stalled.map((d) => d.cira!.openChannels))), 5);
    try {
      const started = Date.now();
      const answers = Promise.all(
        ids.map(async (id) => {
          const res = await gw.request('GET', `/api/power/${id}`, { token });
          return { status: res.status, code: ((await res.json()) as { type?: string }).type?.replace(/^.*:/, ''), ms: Date.now() - started };
        }),
      );
      const health = await gw.request('GET', '/api/health');
      assert.equal(health.status, 200);
      const results = await answers;
      const busy = results.filter((r) => r.status === 503);
      assert.equal(busy.length, 1, JSON.stringify(results));
      for (const r of busy) {
        assert.equal(r.code, 'GW_ERR_CIRA_BUSY');
        assert.ok(r.ms < 1_000, `refused at once, not after a device timeout (${r.ms} ms)`);
      }
      // Two ran into stalled devices and two waited for a slot: all four end in the device's timeout, the waiters later.
      const timedOut = results.filter((r) => r.status !== 503);
      assert.deepEqual(timedOut.map((r) => r.status), [504, 504, 504, 504]);
      assert.equal(timedOut.filter((r) => r.ms >= 2_500).length, 2, JSON.stringify(results));
      assert.ok(mostPerDevice <= 2, `at most 2 channels open on one device at once, saw ${mostPerDevice}`);
    } finally {
      clearInterval(sampler);
      for (const device of stalled) device.setMisbehaviour('none');
    }
    const again = await gw.request('GET', `/api/power/${ids[0]}`, { token });
    assert.equal(again.status, 200, await again.clone().text());
  });

  test('the bound hands a finished slot to the next waiter in order and never runs more than its concurrency', async () => {
    const bound = createTunnelOperationBound({ concurrency: 2, maxWaiting: 3 });
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const job = (n: number) => async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 10));
      running--;
      order.push(n);
      return n;
    };
    const accepted = [1, 2, 3, 4, 5].map((n) => bound.schedule(job(n)));
    await assert.rejects(bound.schedule(job(6)), (err: { status?: number; code?: string }) => err.status === 503 && err.code === 'GW_ERR_CIRA_BUSY');
    assert.deepEqual(await Promise.all(accepted), [1, 2, 3, 4, 5]);
    assert.equal(most, 2);
    assert.deepEqual(order.slice(2), [3, 4, 5]);
    assert.equal(await bound.schedule(job(7)), 7);
  });
});
