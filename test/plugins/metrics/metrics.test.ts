/**
 * The metrics plugin against a real gateway and a simulated fleet: who may scrape (a user with
 * metrics:read or the configured token), an exposition that parses strictly, names by Prometheus
 * conventions (amtgw_ prefix, base units, _total counters, no per-device labels), the fleet's
 * devices, scan, operations, sign-ins and HTTP routes by template, and a listener of its own.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet, type Fleet } from '../../sim/fleet.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, SIM_RMCP_PORT, startScan, waitForScan } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';
import { parseExposition, sampleValue, type Family } from './exposition-parser.js';

const TOKEN = 'scrape-token-0123456789abcdef';
/** Label names that would make a series per device. */
const DEVICE_LABELS = /^(device|device_?id|id|ip|ip_?address|address|host(name)?|uuid|fqdn|target|scan_?id)$/i;

describe('metrics', () => {
  let fleet: Fleet;
  let gw: TestGateway;
  let admin: string;
  let devices: Array<{ id: string; ipAddress: string; hostname: string | null }>;

  before(async () => {
    fleet = await startFleet({ count: 3, base: '127.124.0.1', rmcpPort: SIM_RMCP_PORT, seed: 'metrics' });
    gw = await startTestGateway({
      plugins: ['rest-api', 'power-mgmt', 'metrics'],
      overrides: mergeConfig(SIM_AMT_SETTINGS, { plugins: { metrics: { enable: true, options: { token: TOKEN } } } }),
    });
    admin = await gw.login();
    await gw.request('POST', '/api/auth/login', { body: { username: 'admin', password: 'wrong-password-9' } });
    await createCredential(gw, admin, { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true });
    const scan = await waitForScan(gw, admin, (await startScan(gw, admin, { range: '127.124.0.1-3', timeoutMs: 2000 })).id);
    assert.equal(scan.status, 'completed');
    devices = (await (await gw.request('GET', '/api/devices', { token: admin })).json()) as typeof devices;
    for (const d of devices) assert.equal((await gw.request('GET', `/api/power/${d.id}`, { token: admin })).status, 200);
  });
  after(async () => {
    await gw?.cleanup();
    await fleet?.stop();
  });

  const scrape = async (token = TOKEN): Promise<Map<string, Family>> => {
    const res = await gw.request('GET', '/metrics', { token });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    return parseExposition(await res.text());
  };

  it('serves the configured token and users holding metrics:read, and no one else', async () => {
    assert.equal((await gw.request('GET', '/metrics')).status, 401);
    assert.equal((await gw.request('GET', '/metrics', { token: 'scrape-token-0123456789abcdeX' })).status, 401);
    assert.equal((await gw.request('GET', '/metrics', { token: await gw.userWith(['devices:read']) })).status, 403);
    await scrape(await gw.userWith(['metrics:read']));
    await scrape(admin);
    await scrape();
  });

  it('names every family by the conventions and labels none by device', async () => {
    const families = await scrape();
    const fleetValues = new Set(devices.flatMap((d) => [d.id, d.ipAddress, d.hostname ?? '']).filter(Boolean));
    for (const family of families.values()) {
      assert.ok(family.help.length > 0, `${family.name} has HELP`);
      assert.ok(/^(amtgw|process|nodejs)_/.test(family.name), `${family.name}: the gateway's own are amtgw_, the rest process_/nodejs_`);
      if (family.type === 'counter') assert.ok(family.name.endsWith('_total'), `counter ${family.name} ends in _total`);
      // prom-client's own nodejs_active_*_total gauges keep the names dashboards know; ours follow the rule.
      else if (family.name.startsWith('amtgw_')) assert.ok(!family.name.endsWith('_total'), `${family.type} ${family.name} does not end in _total`);
      assert.ok(!/_(ms|milliseconds|millis|us|microseconds|minutes|hours|kb|kib|mb|mib|percent)(_|$)/.test(family.name), `${family.name} is in base units`);
      if (family.type === 'histogram' && family.name.startsWith('amtgw_')) assert.ok(family.name.endsWith('_seconds'), `${family.name} measures seconds`);
      for (const sample of family.samples) {
        for (const [label, value] of Object.entries(sample.labels)) {
          assert.ok(!DEVICE_LABELS.test(label), `${sample.name} has no per-device label (${label})`);
          assert.ok(!fleetValues.has(value), `${sample.name}{${label}} does not name a device (${value})`);
          assert.ok(!/\/api\/.*\/[0-9a-f]{8}-/.test(value), `${sample.name}{${label}} is a template, not a raw URL (${value})`);
        }
      }
    }
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds']) assert.ok(families.has(name), `${name} is exposed`);
  });

  it('counts the fleet, the scan, the operations, the sign-ins and the HTTP routes', async () => {
    const families = await scrape();
    assert.equal(sampleValue(families, 'amtgw_devices', { connection: 'lan', auth_status: 'ok' }), 3);
    assert.equal(sampleValue(families, 'amtgw_scans_started_total'), 1);
    assert.equal(sampleValue(families, 'amtgw_scans_finished_total', { status: 'completed' }), 1);
    assert.equal(sampleValue(families, 'amtgw_scans_running'), 0);
    assert.equal(sampleValue(families, 'amtgw_scan_addresses_probed_total'), 3);
    assert.equal(sampleValue(families, 'amtgw_scan_devices_found_total'), 3);
    assert.ok((sampleValue(families, 'amtgw_device_operations_total', { operation: 'power-read', outcome: 'ok' }) ?? 0) >= 3);
    assert.ok((sampleValue(families, 'amtgw_device_operation_duration_seconds_count', { operation: 'power-read' }) ?? 0) >= 3);
    assert.equal(sampleValue(families, 'amtgw_sign_in_attempts_total', { outcome: 'failure', door: 'rest' }), 1);
    assert.ok((sampleValue(families, 'amtgw_sign_in_attempts_total', { outcome: 'success', door: 'rest' }) ?? 0) >= 1);
    assert.equal(sampleValue(families, 'amtgw_http_request_duration_seconds_count', { method: 'GET', route: '/api/power/:deviceId', status: '200' }), 3);
    assert.ok((sampleValue(families, 'amtgw_http_request_duration_seconds_count', { method: 'POST', route: '/api/auth/login', status: '401' }) ?? 0) >= 1);
    for (const name of ['amtgw_remote_console_sessions_total', 'amtgw_remote_console_bytes_total', 'amtgw_cira_tunnels', 'amtgw_cira_tunnel_ends_total', 'amtgw_hub_connections', 'amtgw_soap_requests_total', 'amtgw_device_sign_in_pauses_total', 'amtgw_device_sign_in_failures_total']) {
      assert.ok(families.has(name), `${name} is defined`);
    }
  });

  it('serves a listener of its own when configured, without a token where the site says so', async () => {
    const own = await startTestGateway({ plugins: ['metrics'], overrides: { plugins: { metrics: { enable: true, options: { listener: { port: 0, requireAuth: false } } } } } });
    try {
      const url = own.gateway.listeners.find((l) => l.plugin === 'metrics')!.url;
      const res = await fetch(`${url}/metrics`);
      assert.equal(res.status, 200);
      assert.ok(parseExposition(await res.text()).has('amtgw_build_info'));
      assert.equal((await fetch(`${url}/other`)).status, 404);
      assert.equal((await own.request('GET', '/metrics', { token: await own.login() })).status, 404, 'not on the main listener then');
    } finally {
      await own.cleanup();
    }
  });
});
