/**
 * Booting simulated devices from an uploaded image through the gateway: the upload (SHA-256 on the
 * way in, duplicate names, the size cap, permissions), an IDE-R session served by the gateway, the
 * power action's IDE-R boot (409 without a session), the device's BIOS and installer reading the
 * image unchanged, the image in use until the session ends, the session's end on DELETE and on the
 * device's close, and a bulk boot of several devices from one image.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFleetGateway, type FleetGateway } from '../remote-monitor/fixtures/fleet-gateway.js';
import { codeOf, redirectionKit, type Problem } from './redirection-kit.js';
import { writeBootIso, type BuiltImage } from '../../helpers/boot-images.js';
import { until } from '../../helpers/poll.js';
import { scanHubConnection } from '../../helpers/scan-hub-connection.js';

let kit: FleetGateway;
let dir: string;
let iso: BuiltImage;
const k = redirectionKit(() => kit);

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ider-sessions-'));
  iso = await writeBootIso(join(dir, 'rescue.iso'), 2 * 1024 * 1024);
  kit = await startFleetGateway({
    fleet: { count: 5, base: '127.64.2.1', provisioningModes: [1], seed: 'ider-sessions' },
    range: '127.64.2.1-5',
    plugins: ['rest-api', 'redirection', 'power-mgmt', 'images', 'audit', 'scan-hub'],
    pluginConfig: {
      'power-mgmt': { options: { confirm: { intervalMs: 100, attempts: 3 } } },
      images: { options: { maxBytes: 4 * 1024 * 1024 } },
      // Viewed sessions bounded below the bulk boot's three: IDE-R sessions count toward their own bound.
      redirection: { options: { maxSessionsPerUser: 2, ider: { progressIntervalMs: 100, maxSessionsPerUser: 4 } } },
    },
  });
});

after(async () => {
  await kit?.cleanup();
  await rm(dir, { recursive: true, force: true });
});

interface Image {
  id: string;
  name: string;
  kind: string;
  sizeBytes: number;
  sha256: string;
  inUse: number;
  available: boolean;
}

const upload = (name: string, kind: string, body: Buffer, token = kit.token, type = 'application/octet-stream') =>
  fetch(`${kit.gw.url}/api/images?name=${encodeURIComponent(name)}&kind=${kind}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': type }, body });
const problem = async (res: Response) => codeOf((await res.json()) as Problem);

let image: Image;

test('an upload is stored with the SHA-256 of its bytes; a taken name is 409, too large 413, JSON 415, without images:manage 403', async () => {
  const bytes = await readFile(iso.path);
  const res = await upload('rescue', 'cd', bytes);
  assert.equal(res.status, 201, await res.clone().text());
  image = (await res.json()) as Image;
  assert.equal(image.sha256, iso.sha256);
  assert.equal(image.sizeBytes, iso.sizeBytes);
  assert.deepEqual({ kind: image.kind, inUse: image.inUse, available: image.available }, { kind: 'cd', inUse: 0, available: true });
  const again = await upload('rescue', 'cd', bytes);
  assert.equal(again.status, 409);
  assert.equal(await problem(again), 'GW_ERR_IMAGE_EXISTS');
  const big = await upload('big', 'cd', Buffer.alloc(4 * 1024 * 1024 + 1));
  assert.equal(big.status, 413);
  assert.equal(await problem(big), 'GW_ERR_IMAGE_TOO_LARGE');
  const json = await upload('json', 'cd', Buffer.from('{}'), kit.token, 'application/json');
  assert.equal(json.status, 415);
  const viewer = await kit.gw.userWith(['remote:connect']);
  const refused = await upload('mine', 'cd', bytes, viewer);
  assert.equal(refused.status, 403);
  const list = (await (await k.api('GET', '/api/images', undefined, viewer)).json()) as Image[];
  assert.deepEqual(list.map((i) => i.name), ['rescue']);
});

test('boot ider-cd without an open IDE-R session is 409; with one, the device boots the image and its installer reads it unchanged; progress reaches the hub', async () => {
  const hub = scanHubConnection(kit.gw.url, kit.token);
  const progress: Array<{ sessionId: string; bytesServed: number; ended?: string }> = [];
  hub.on('IderSessionProgress', (p: { sessionId: string; bytesServed: number; ended?: string }) => void progress.push(p));
  await hub.start();
  const sim = kit.fleet.devices[0]!;
  const id = k.idOf(sim);
  const early = await k.api('POST', `/api/power/${id}`, { action: 'reset', boot: 'ider-cd' });
  assert.equal(early.status, 409);
  assert.equal(await problem(early), 'GW_ERR_IDER_NOT_OPEN');
  const opened = await k.api('POST', `/api/redirection/${id}/sessions`, { mode: 'ider', cd: image.id });
  assert.equal(opened.status, 201, await opened.clone().text());
  const session = (await opened.json()) as { id: string; mode: string; cd: string; floppy: null };
  assert.deepEqual({ mode: session.mode, cd: session.cd, floppy: session.floppy }, { mode: 'ider', cd: image.id, floppy: null });
  const busy = await k.api('POST', `/api/redirection/${id}/sessions`, { mode: 'ider', cd: image.id });
  assert.equal(await problem(busy), 'GW_ERR_REDIRECTION_BUSY');
  const inUse = await k.api('DELETE', `/api/images/${image.id}`);
  assert.equal(inUse.status, 409);
  assert.equal(await problem(inUse), 'GW_ERR_IMAGE_IN_USE');
  await until('drives attached', () => sim.redirection.iderHost.link?.attached === 'reboot');
  const booted = sim.redirection.iderHost.nextFindings();
  const power = await k.api('POST', `/api/power/${id}`, { action: 'reset', boot: 'ider-cd' });
  assert.equal(power.status, 200, await power.clone().text());
  const findings = await booted;
  assert.equal(findings.error, null);
  assert.equal(findings.bootImageSha256, iso.bootSha256);
  assert.equal(findings.installer?.sha256, iso.sha256);
  assert.equal(sim.redirection.lastBoot, 'ider-cd');
  const listed = (await (await k.api('GET', '/api/redirection/sessions')).json()) as Array<{ id: string; mode: string; bytesToDevice: number }>;
  const mine = listed.find((s) => s.id === session.id)!;
  assert.equal(mine.mode, 'ider');
  assert.ok(mine.bytesToDevice > iso.sizeBytes, `bytesToDevice ${mine.bytesToDevice}`);
  assert.equal(((await (await k.api('GET', `/api/images/${image.id}`)).json()) as Image).inUse, 1);
  await until('progress on the hub', () => progress.some((p) => p.sessionId === session.id && p.bytesServed >= iso.sizeBytes));
  assert.equal((await k.api('DELETE', `/api/redirection/sessions/${session.id}`)).status, 204);
  await until('device session closed', () => !sim.redirection.open.has('ider'));
  await until('the last progress names the end', () => progress.some((p) => p.sessionId === session.id && p.ended === 'deleted'));
  await hub.stop();
  await until('image released', async () => ((await (await k.api('GET', `/api/images/${image.id}`)).json()) as Image).inUse === 0);
  const records = await until('the end audited', async () => {
    const all = (await (await k.api('GET', `/api/audit?target=${id}`)).json()) as Array<{ action: string; user: string | null; detail: Record<string, unknown> }>;
    return all.some((r) => r.action === 'remote.ider.end') && all;
  });
  const ended = records.find((r) => r.action === 'remote.ider.end')!;
  assert.equal(ended.detail['reason'], 'deleted');
  assert.equal(ended.detail['bytesServed'] as number >= iso.sizeBytes, true);
  assert.ok(records.some((r) => r.action === 'remote.ider.start'));
});

test('a device that closes the session ends it on the gateway; the image is free again', async () => {
  const sim = kit.fleet.devices[1]!;
  const id = k.idOf(sim);
  const opened = await k.api('POST', `/api/redirection/${id}/sessions`, { mode: 'ider', cd: image.id });
  assert.equal(opened.status, 201);
  await until('drives attached', () => sim.redirection.iderHost.link?.attached === 'reboot');
  sim.redirection.iderHost.link!.close();
  await until('session gone', async () => ((await (await k.api('GET', '/api/redirection/sessions')).json()) as unknown[]).length === 0);
});

test("an IDE-R session outlives its user's sign-out (the gateway serves it, no viewer) and ends when the user's password changes", async () => {
  const sim = kit.fleet.devices[1]!;
  const id = k.idOf(sim);
  const username = 'ider-operator';
  const token = await kit.gw.userWith(['remote:connect'], username);
  const opened = await k.api('POST', `/api/redirection/${id}/sessions`, { mode: 'ider', cd: image.id }, token);
  assert.equal(opened.status, 201, await opened.clone().text());
  const { id: sessionId } = (await opened.json()) as { id: string };
  const live = async () => ((await (await k.api('GET', '/api/redirection/sessions')).json()) as Array<{ id: string }>).some((s) => s.id === sessionId);
  assert.equal((await kit.gw.request('POST', '/api/auth/logout', { token })).status, 204);
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.ok(await live(), 'a sign-out ended the IDE-R session');
  const changed = await kit.gw.request('PUT', `/api/users/${username}`, { token: kit.token, body: { password: 'another-password-2' } });
  assert.ok(changed.status < 300, `password change: ${changed.status}`);
  await until('session ended by the password change', async () => !(await live()), 2_000);
});

test('a bulk boot boots three devices from one image, more than the viewed sessions a user may hold; an unknown device gets its own 404 result; IDE-R sessions have a per-user bound of their own', async () => {
  const sims = kit.fleet.devices.slice(2, 5);
  const ids = sims.map((s) => k.idOf(s));
  const booted = sims.map((s) => s.redirection.iderHost.nextFindings());
  const res = await k.api('POST', '/api/redirection/ider/bulk', { deviceIds: [...ids, 'no-such-device'], cd: image.id, boot: 'ider-cd', action: 'reset' });
  assert.equal(res.status, 200, await res.clone().text());
  const body = (await res.json()) as { total: number; succeeded: number; failed: number; results: Array<{ deviceId: string; ok: boolean; error?: { status: number } }> };
  assert.deepEqual({ total: body.total, succeeded: body.succeeded, failed: body.failed }, { total: 4, succeeded: 3, failed: 1 });
  assert.equal(body.results[3]!.error?.status, 404);
  for (const findings of await Promise.all(booted)) assert.equal(findings.installer?.sha256, iso.sha256);
  // Three IDE-R sessions open, above the two viewed sessions a user may hold: a fourth is the IDE-R
  // bound (4), a fifth is refused, and a KVM ticket still counts toward the viewed sessions' bound.
  const [first, second] = kit.fleet.devices.slice(0, 2).map((s) => k.idOf(s));
  assert.equal((await k.api('POST', `/api/redirection/${first}/sessions`, { mode: 'ider', cd: image.id })).status, 201);
  const fifth = await k.api('POST', `/api/redirection/${second}/sessions`, { mode: 'ider', cd: image.id });
  assert.equal(fifth.status, 429);
  assert.match(((await fifth.json()) as Problem).detail ?? '', /4 IDE-R sessions/);
  assert.equal((await k.api('POST', `/api/redirection/${second}/sessions`, { mode: 'kvm' })).status, 201);
  const sessions = (await (await k.api('GET', '/api/redirection/sessions')).json()) as Array<{ id: string }>;
  for (const s of sessions) await k.api('DELETE', `/api/redirection/sessions/${s.id}`);
  await until('images free', async () => ((await (await k.api('GET', `/api/images/${image.id}`)).json()) as Image).inUse === 0);
  assert.equal((await k.api('DELETE', `/api/images/${image.id}`)).status, 204);
  assert.equal((await k.api('GET', `/api/images/${image.id}`)).status, 404);
});
