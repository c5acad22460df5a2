/**
 * Extra suite (`npm run test:prometheus`, run by .ci/run): a real Prometheus server (Debian's
 * `prometheus` package) scrapes a gateway, with its bearer token, while it scans a simulated fleet
 * and reads power states; its HTTP query API then returns the devices, scan and operation series.
 * Not part of `npm test`: without Prometheus it skips, unless AMTGW_REQUIRE_PROMETHEUS=1 (CI)
 * makes a missing one a failure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFleet } from '../../sim/fleet.js';
import { startTestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, SIM_RMCP_PORT, startScan, waitForScan } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';
import { freePort } from '../../bench/free-port.js';
import { until } from '../../helpers/poll.js';

const TOKEN = 'prometheus-scrape-token-0123456789';
const FLEET_SIZE = 12;

function prometheusBinary(): string | null {
  for (const candidate of [process.env['AMTGW_PROMETHEUS'], '/usr/bin/prometheus', 'prometheus']) {
    if (candidate && spawnSync(candidate, ['--version'], { stdio: 'ignore' }).status === 0) return candidate;
  }
  return null;
}

interface QueryResult {
  metric: Record<string, string>;
  value: [number, string];
}

async function query(base: string, promql: string): Promise<QueryResult[]> {
  const res = await fetch(`${base}/api/v1/query?${new URLSearchParams({ query: promql })}`);
  const body = (await res.json()) as { status: string; data: { resultType: string; result: QueryResult[] } };
  assert.equal(body.status, 'success', promql);
  return body.data.result;
}

/** A query that fails while Prometheus starts counts as not there yet. */
const untilQueried = <T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> =>
  until(what, () => check().catch(() => undefined), { timeoutMs, intervalMs: 250 });

const single = (results: QueryResult[]) => (results.length === 1 ? Number(results[0]!.value[1]) : undefined);

test('a real Prometheus scrapes the gateway during a scan and its query API returns the devices, scan and operation series', async (t) => {
  const binary = prometheusBinary();
  if (!binary) {
    const reason = 'prometheus is not installed (apt-get install -y prometheus)';
    if (process.env['AMTGW_REQUIRE_PROMETHEUS'] === '1') assert.fail(reason);
    t.skip(reason);
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-prometheus-'));
  const fleet = await startFleet({ count: FLEET_SIZE, base: '127.125.0.1', rmcpPort: SIM_RMCP_PORT, seed: 'prometheus' });
  const gw = await startTestGateway({
    plugins: ['rest-api', 'power-mgmt', 'metrics'],
    overrides: mergeConfig(SIM_AMT_SETTINGS, { plugins: { metrics: { enable: true, options: { token: TOKEN } } } }),
  });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const config = [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 900ms',
    'scrape_configs:',
    '  - job_name: amt-gateway',
    '    metrics_path: /metrics',
    '    authorization:',
    '      type: Bearer',
    `      credentials: ${TOKEN}`,
    '    static_configs:',
    `      - targets: ['${new URL(gw.url).host}']`,
  ].join('\n');
  await writeFile(join(dir, 'prometheus.yml'), config);
  const server = spawn(binary, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let serverLog = '';
  server.stderr!.on('data', (chunk: Buffer) => (serverLog += chunk.toString()));
  const exited = new Promise((resolve) => server.once('exit', resolve));
  try {
    await untilQueried('Prometheus ready', 30_000, async () => ((await fetch(`${base}/-/ready`)).ok ? true : undefined));
    await untilQueried('the gateway scraped', 30_000, async () => (single(await query(base, 'up{job="amt-gateway"}')) === 1 ? true : undefined));

    const admin = await gw.login();
    await createCredential(gw, admin, { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true });
    // Mostly empty addresses whose RMCP ping waits out its timeout: a scan that lasts several scrapes.
    const scan = await startScan(gw, admin, { range: '127.125.0.1-127.125.3.254', timeoutMs: 1500, concurrency: 128 });
    const done = await waitForScan(gw, admin, scan.id, 120_000);
    assert.equal(done.status, 'completed');
    const devices = (await (await gw.request('GET', '/api/devices', { token: admin })).json()) as Array<{ id: string }>;
    assert.equal(devices.length, FLEET_SIZE);
    for (const device of devices) assert.equal((await gw.request('GET', `/api/power/${device.id}`, { token: admin })).status, 200);

    assert.equal(await untilQueried('the devices series', 20_000, async () => (single(await query(base, 'sum(amtgw_devices{job="amt-gateway"})')) === FLEET_SIZE ? FLEET_SIZE : undefined)), FLEET_SIZE);
    const byStatus = await query(base, 'amtgw_devices{connection="lan"}');
    assert.deepEqual(byStatus.map((r) => r.metric['auth_status']), ['ok']);
    assert.equal(single(await query(base, 'max_over_time(amtgw_scans_running[10m])')), 1, 'a scrape saw the scan running');
    await untilQueried('the finished scan', 20_000, async () => (single(await query(base, 'amtgw_scans_finished_total{status="completed"}')) === 1 ? true : undefined));
    assert.equal(single(await query(base, 'amtgw_scans_started_total')), 1);
    assert.ok((single(await query(base, 'amtgw_scan_addresses_probed_total')) ?? 0) >= 1000);
    const operations = await untilQueried('the operation series', 20_000, async () => {
      const value = single(await query(base, 'sum(amtgw_device_operations_total{operation="power-read",outcome="ok"})'));
      return value !== undefined && value >= FLEET_SIZE ? value : undefined;
    });
    assert.ok(operations >= FLEET_SIZE);
    const p99 = single(await query(base, 'histogram_quantile(0.99, sum by (le) (amtgw_device_operation_duration_seconds_bucket{operation="power-read"}))'));
    assert.ok(p99 !== undefined && p99 > 0 && p99 < 60, `a p99 from the duration histogram (${p99})`);
  } catch (err) {
    throw new Error(`${(err as Error).message}\nprometheus log:\n${serverLog}`, { cause: err });
  } finally {
    server.kill('SIGTERM');
    await exited;
    await gw.cleanup();
    await fleet.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
