/**
 * IDE-R for CIRA devices: the session runs over an APF channel to 16994 in the device's tunnel (16995
 * with TLS inside the channel for a device that forwards only the TLS ports); the device's BIOS
 * boots the served CD and its installer reads it back unchanged.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFleet, type Fleet } from '../../sim/index.js';
import type { SimDevice } from '../../sim/sim-device.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS } from '../../helpers/scan-helpers.js';
import type { Device } from '../../../plugins/rest-api/api.js';
import { ciraPort } from '../cira/gateway-cira-helpers.js';
import { until } from '../../helpers/poll.js';
import { writeBootIso, type BuiltImage } from '../../helpers/boot-images.js';

const MPS = { username: 'mps-ider', password: 'Mps-P@ssw0rd-ider' };
let gw: TestGateway;
let token: string;
let fleet: Fleet;
let dir: string;
let iso: BuiltImage;
let imageId: string;
const logs: string[] = [];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ider-cira-'));
  iso = await writeBootIso(join(dir, 'cira.iso'), 1024 * 1024);
  gw = await startTestGateway({
    plugins: ['rest-api', 'cira', 'redirection', 'images', 'power-mgmt'],
    logs,
    overrides: { ...SIM_AMT_SETTINGS, plugins: { cira: { options: { port: 0, keepAliveIntervalSeconds: 1, keepAliveTimeoutSeconds: 3, forwardSettleMs: 50 } } } },
  });
  token = await gw.login();
  await createCredential(gw, token, { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true });
  assert.equal((await gw.request('POST', '/api/cira/accounts', { token, body: MPS })).status, 201);
  const ca = ((await (await gw.request('GET', '/api/cira/certificate', { token })).json()) as { pem: string }).pem;
  fleet = await startFleet({ count: 2, base: '127.64.3.1', rmcpPort: 0, seed: 'cira-ider', tlsEvery: 2, provisioningModes: [1], cira: { host: '127.0.0.1', port: ciraPort(logs), ...MPS, ca, keepAliveSeconds: 1, reconnectMs: 0 } });
  const res = await fetch(`${gw.url}/api/images?name=cira&kind=cd`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' }, body: await readFile(iso.path) });
  assert.equal(res.status, 201);
  imageId = ((await res.json()) as { id: string }).id;
});

after(async () => {
  await fleet?.stop();
  await gw?.cleanup();
  await rm(dir, { recursive: true, force: true });
});

async function deviceOf(sim: SimDevice): Promise<Device> {
  await sim.cira!.waitFor('connected');
  return until('the tunnelled device is read', async () => {
    const list = (await (await gw.request('GET', '/api/devices', { token })).json()) as Device[];
    const found = list.find((d) => d.uuid === sim.config.uuid);
    return found?.authStatus === 'ok' ? found : undefined;
  });
}

for (const index of [0, 1]) {
  test(`a CIRA device ${index === 1 ? 'forwarding only TLS ports (16995 inside the channel)' : 'on 16994 inside its tunnel'} boots the served CD`, async () => {
    const sim = fleet.devices[index]!;
    const device = await deviceOf(sim);
    const opened = await gw.request('POST', `/api/redirection/${device.id}/sessions`, { token, body: { mode: 'ider', cd: imageId } });
    assert.equal(opened.status, 201, await opened.clone().text());
    const session = (await opened.json()) as { id: string };
    await until('drives attached', () => sim.redirection.iderHost.link?.attached === 'reboot');
    const booted = sim.redirection.iderHost.nextFindings();
    const power = await gw.request('POST', `/api/power/${device.id}`, { token, body: { action: 'reset', boot: 'ider-cd' } });
    assert.equal(power.status, 200, await power.clone().text());
    const findings = await booted;
    assert.equal(findings.error, null);
    assert.equal(findings.installer?.sha256, iso.sha256);
    assert.equal((await gw.request('DELETE', `/api/redirection/sessions/${session.id}`, { token })).status, 204);
    await until('device session closed', () => !sim.redirection.open.has('ider'));
  });
}
