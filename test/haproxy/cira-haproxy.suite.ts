/**
 * Extra suite (`npm run test:haproxy`, run by .ci/run): Debian's `haproxy`, configured from the
 * shipped config/haproxy-cira.cfg, terminates the devices' TLS in front of the gateway's PROXY v2
 * listener. A simulated CIRA device dials HAProxy from its own loopback address, trusting only the
 * gateway's certificate, signs in, is read through its tunnel, and the gateway sees its address.
 * Not part of `npm test`: it needs the haproxy package. Without it the suite skips, unless
 * AMTGW_REQUIRE_HAPROXY=1 (CI) makes a missing haproxy a failure.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import type { Device } from '../../plugins/rest-api/api.js';
import { freePort } from '../bench/free-port.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS } from '../helpers/scan-helpers.js';
import { mergeConfig } from '../../core/config/load-config.js';
import { RawDevice, startCiraServer, uuidOf, type TestCiraServer } from '../plugins/cira/cira-test-kit.js';
import { startFleet, type Fleet } from '../sim/index.js';
import { findHaproxy, startHaproxy, type RunningHaproxy } from './haproxy-process.js';
import { until } from '../helpers/poll.js';

const MPS = { username: 'mps-haproxy', password: 'Mps-P@ssw0rd-haproxy' };
/** The device dials from here; HAProxy connects to the gateway from elsewhere (its unix socket). */
const DEVICE_ADDRESS = '127.43.7.9';
const binary = findHaproxy();

function skipWithoutHaproxy(t: { skip(message: string): void }): boolean {
  if (binary) return false;
  const reason = 'haproxy is not installed (apt-get install -y haproxy)';
  if (process.env['AMTGW_REQUIRE_HAPROXY'] === '1') assert.fail(reason);
  t.skip(reason);
  return true;
}

/**
 * The gateway's own pair, combined with the command config/haproxy-cira.cfg gives the operator
 * (`awk 1`, since a PEM file without a final newline would glue the two blocks together).
 */
async function combinedPem(certDir: string, dir: string): Promise<string> {
  const file = join(dir, 'amt-gateway-cira.pem');
  const awk = spawnSync('awk', ['1', join(certDir, 'server.cert.pem'), join(certDir, 'server.key.pem')], { encoding: 'utf8' });
  assert.equal(awk.status, 0, awk.stderr);
  await writeFile(file, awk.stdout, { mode: 0o600 });
  await chmod(file, 0o600);
  return file;
}

describe('CIRA through HAProxy: TLS in HAProxy, PROXY v2 to the gateway on a unix socket', () => {
  let dir: string;
  let gw: TestGateway;
  let token: string;
  let haproxy: RunningHaproxy | undefined;
  let fleet: Fleet | undefined;
  let ca: string;
  let port: number;
  const logs: string[] = [];

  before(async () => {
    if (!binary) return;
    dir = await mkdtemp(join(tmpdir(), 'amtgw-haproxy-'));
    const socketPath = join(dir, 'cira.sock');
    gw = await startTestGateway({
      plugins: ['rest-api', 'power-mgmt', 'cira'],
      logs,
      overrides: mergeConfig(SIM_AMT_SETTINGS, {
        plugins: { cira: { options: { tls: { terminator: 'haproxy' }, socketPath, publicAddress: 'mps.example.test', keepAliveIntervalSeconds: 2, keepAliveTimeoutSeconds: 5, forwardSettleMs: 50 } } },
      }),
    });
    token = await gw.login();
    await createCredential(gw, token, { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true });
    const account = await gw.request('POST', '/api/cira/accounts', { token, body: MPS });
    assert.equal(account.status, 201, await account.text());
    ca = ((await (await gw.request('GET', '/api/cira/certificate', { token })).json()) as { pem: string }).pem;
    port = await freePort();
    haproxy = await startHaproxy(binary, dir, { port, pemFile: await combinedPem(join(gw.dataDir, 'cira'), dir), gateway: { path: socketPath } });
  });
  after(async () => {
    await fleet?.stop();
    await haproxy?.stop();
    await gw?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('a simulated device dials HAProxy over TLS, signs in, is read through its tunnel, and the gateway sees its own address', async (t) => {
    if (skipWithoutHaproxy(t)) return;
    fleet = await startFleet({
      count: 1,
      base: DEVICE_ADDRESS,
      rmcpPort: 0,
      seed: 'cira-haproxy',
      // Trusting only the gateway's certificate: HAProxy must present the gateway's own.
      cira: { host: '127.0.0.1', port, username: MPS.username, password: MPS.password, ca, keepAliveSeconds: 2, reconnectMs: 0 },
    });
    const device = fleet.devices[0]!;
    await device.cira!.waitFor('connected', 15_000);
    const [listed] = await until('the device is read through its tunnel', async () => {
      const found = ((await (await gw.request('GET', '/api/devices', { token })).json()) as Device[]).filter((d) => d.uuid === device.config.uuid);
      return found.length === 1 && found[0]!.hostname ? found : undefined;
    }, 30_000);
    assert.equal(listed!.hostname, device.config.hostname);
    assert.equal(listed!.firmwareVersion, device.config.firmwareVersion);
    assert.equal(listed!.ipAddress, DEVICE_ADDRESS, "the device list has the device's address, not HAProxy's");
    assert.ok(device.cira!.counters.channelsOpened > 0, 'read through APF channels');

    const connections = (await (await gw.request('GET', '/api/cira/connections', { token })).json()) as Array<{ uuid: string; remoteAddress: string; remotePort: number }>;
    const tunnel = connections.find((c) => c.uuid === device.config.uuid);
    assert.equal(tunnel?.remoteAddress, DEVICE_ADDRESS, 'the tunnel is listed under the address the device dialed from');
    assert.ok(tunnel!.remotePort > 0);
    assert.ok(logs.some((line) => line.includes('cira tunnel up') && line.includes(DEVICE_ADDRESS)), 'logged with its address');

    const power = await gw.request('GET', `/api/power/${listed!.id}`, { token });
    assert.equal(power.status, 200, await power.clone().text());
    assert.equal(((await power.json()) as { powerState: number }).powerState, 2);
  });

  test("keep-alives pass through HAProxy and a device that vanishes goes down by the gateway's keep-alive timeout", async (t) => {
    if (skipWithoutHaproxy(t)) return;
    const device = fleet!.devices[0]!;
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    assert.ok(device.cira!.counters.keepAliveRepliesReceived > 0, 'keep-alive replies came back through HAProxy');
    const live = async () => ((await (await gw.request('GET', '/api/cira/connections', { token })).json()) as Array<{ uuid: string }>).some((c) => c.uuid === device.config.uuid);
    assert.equal(await live(), true, 'still up after more than the keep-alive timeout of 5 s');
    device.cira!.vanish();
    await until('the tunnel is down', async () => !(await live()), 10_000);
  });

  test('plain bytes to HAProxy never reach the gateway as a tunnel', async (t) => {
    if (skipWithoutHaproxy(t)) return;
    const socket = netConnect({ host: '127.0.0.1', port, localAddress: '127.43.7.10' });
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => socket.once('close', resolve));
    const connections = (await (await gw.request('GET', '/api/cira/connections', { token })).json()) as Array<{ remoteAddress: string }>;
    assert.ok(!connections.some((c) => c.remoteAddress === '127.43.7.10'));
  });
});

describe('CIRA through HAProxy to a loopback port, old firmware included', () => {
  let dir: string;
  let cira: TestCiraServer;
  let haproxy: RunningHaproxy | undefined;
  let port: number;

  before(async () => {
    if (!binary) return;
    dir = await mkdtemp(join(tmpdir(), 'amtgw-haproxy-'));
    // HAProxy connects from the address the shipped server line names (`source 127.0.0.2`).
    cira = await startCiraServer({ tls: { terminator: 'haproxy' }, proxySources: ['127.0.0.2'], forwardSettleMs: 20 });
    const pemFile = await combinedPem(join(cira.dataDir, 'cira'), dir);
    port = await freePort();
    // The shipped old-firmware bind line: TLS 1.0 and 1.1 at OpenSSL security level 0.
    haproxy = await startHaproxy(binary, dir, { port, pemFile, gateway: { port: cira.port }, legacyTls: true });
  });
  after(async () => {
    await haproxy?.stop();
    await cira?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  for (const [index, [name, tls]] of ([
    ['TLS 1.1 (old firmware)', { minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT:@SECLEVEL=0' }],
    ['TLS 1.2', { maxVersion: 'TLSv1.2' }],
    ['TLS 1.3', { minVersion: 'TLSv1.3' }],
  ] as const).entries()) {
    test(`a device on ${name} signs in through HAProxy and is listed under its own address`, async (t) => {
      if (skipWithoutHaproxy(t)) return;
      const n = index + 1;
      const address = `127.43.8.${n}`;
      const device = await RawDevice.connect(port, address, tls);
      assert.equal(device.socket.remoteAddress, '127.0.0.1');
      await device.handshake(uuidOf(800 + n));
      await until('tunnel up', () => cira.server.service.connection(uuidOf(800 + n)) !== undefined, 5000);
      assert.equal(cira.server.service.connection(uuidOf(800 + n))!.remoteAddress, address);
      device.destroy();
    });
  }

  test('HAProxy refuses TLS 1.1 with the default bind line', async (t) => {
    if (skipWithoutHaproxy(t)) return;
    const strictPort = await freePort();
    const strict = await startHaproxy(binary!, dir, { port: strictPort, pemFile: join(dir, 'amt-gateway-cira.pem'), gateway: { port: cira.port } });
    try {
      const outcome = await new Promise<string>((resolve) => {
        const socket = tlsConnect({ host: '127.0.0.1', port: strictPort, rejectUnauthorized: false, minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT:@SECLEVEL=0' }, () => {
          resolve(socket.getProtocol() ?? 'none');
          socket.destroy();
        });
        socket.once('error', () => resolve('refused'));
      });
      assert.equal(outcome, 'refused');
    } finally {
      await strict.stop();
    }
  });
});
