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
import { writeBootIso, type BuiltImage } from '../../helpers/boot-images.js';
import { until } from '../../helpers/poll.js';
import { startCiraKit, type CiraKit } from './cira-kit.js';

let kit: CiraKit;
let dir: string;
let iso: BuiltImage;
let imageId: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ider-cira-'));
  iso = await writeBootIso(join(dir, 'cira.iso'), 1024 * 1024);
  kit = await startCiraKit(['redirection', 'images', 'power-mgmt'], '127.64.3.1', 'cira-ider');
  const res = await fetch(`${kit.gw.url}/api/images?name=cira&kind=cd`, { method: 'POST', headers: { authorization: `Bearer ${kit.token}`, 'content-type': 'application/octet-stream' }, body: await readFile(iso.path) });
  assert.equal(res.status, 201);
  imageId = ((await res.json()) as { id: string }).id;
});

after(async () => {
  await kit?.stop();
  await rm(dir, { recursive: true, force: true });
});

for (const index of [0, 1]) {
  test(`a CIRA device ${index === 1 ? 'forwarding only TLS ports (16995 inside the channel)' : 'on 16994 inside its tunnel'} boots the served CD`, async () => {
    const sim = kit.fleet.devices[index]!;
    const device = await kit.deviceOf(sim);
    const opened = await kit.gw.request('POST', `/api/redirection/${device.id}/sessions`, { token: kit.token, body: { mode: 'ider', cd: imageId } });
    assert.equal(opened.status, 201, await opened.clone().text());
    const session = (await opened.json()) as { id: string };
    await until('drives attached', () => sim.redirection.iderHost.link?.attached === 'reboot');
    const booted = sim.redirection.iderHost.nextFindings();
    const power = await kit.gw.request('POST', `/api/power/${device.id}`, { token: kit.token, body: { action: 'reset', boot: 'ider-cd' } });
    assert.equal(power.status, 200, await power.clone().text());
    const findings = await booted;
    assert.equal(findings.error, null);
    assert.equal(findings.installer?.sha256, iso.sha256);
    assert.equal((await kit.gw.request('DELETE', `/api/redirection/sessions/${session.id}`, { token: kit.token })).status, 204);
    await until('device session closed', () => !sim.redirection.open.has('ider'));
  });
}
