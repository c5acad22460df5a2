/**
 * Remote console sessions through the gateway with real clients: an RFB client gets the simulated
 * device's own screen at 16, 32 and 8 bits per pixel and changes it by typing, on plain and TLS
 * devices; a serial console shows the banner and echoes; one session per mode per device; the
 * password reaches no response, frame or log line.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeScreen, keyBlockOrigin, keyColour, renderScreen, SCREEN } from '../../sim/redirection/redir-screen.js';
import { FORMATS } from '../../helpers/rfb-client.js';
import { FLEET_PASSWORD, startFleetGateway, type FleetGateway } from '../remote-monitor/fixtures/fleet-gateway.js';
import { codeOf, redirectionKit, type Problem } from './redirection-kit.js';
import { until } from '../../helpers/poll.js';

let kit: FleetGateway;
const logs: string[] = [];
const k = redirectionKit(() => kit);

before(async () => {
  kit = await startFleetGateway({
    fleet: { count: 6, base: '127.63.0.1', tlsEvery: 3, provisioningModes: [1], seed: 'relay-test' },
    range: '127.63.0.1-6',
    plugins: ['rest-api', 'redirection', 'power-mgmt'],
    gateway: { logs },
  });
});

after(async () => {
  await kit?.cleanup();
});

const plain = () => kit.fleet.devices[0]!;
const tlsDevice = () => kit.fleet.devices.find((d) => d.config.tls)!;

for (const which of ['plain', 'TLS'] as const) {
  test(`KVM over the relay (${which} device): RFB 004.000 from the device, its screen at 16, 32 and 8 bpp, typing changes it`, async () => {
    const sim = which === 'plain' ? plain() : tlsDevice();
    const { ws, rfb, init } = await k.kvm(sim);
    assert.equal(init.version, 'RFB 004.000\n');
    assert.equal(init.name, 'Intel(r) AMT KVM');
    assert.deepEqual([init.width, init.height, init.format.bitsPerPixel], [SCREEN.width, SCREEN.height, 16]);
    rfb.requestUpdate(false);
    await rfb.readUpdate();
    assert.ok(rfb.framebuffer.equals(encodeScreen(renderScreen(sim.state), FORMATS[16])), 'the 16 bpp screen is the device screen');
    for (const bits of [32, 8] as const) {
      rfb.setPixelFormat(bits);
      rfb.requestUpdate(false);
      await rfb.readUpdate();
      assert.ok(rfb.framebuffer.equals(encodeScreen(renderScreen(sim.state), FORMATS[bits])), `the ${bits} bpp screen is the device screen`);
    }
    rfb.setPixelFormat(32);
    rfb.requestUpdate(false);
    await rfb.readUpdate();
    const typedBefore = sim.redirection.typed.length;
    rfb.requestUpdate(true);
    rfb.key(0x61); // 'a'
    await rfb.readUpdate();
    assert.equal(sim.redirection.typed.length, typedBefore + 1);
    const { x, y } = keyBlockOrigin(Math.min(typedBefore, 59));
    const at = (y * SCREEN.width + x) * 4;
    const [r, g, b] = keyColour(0x61);
    assert.deepEqual([rfb.framebuffer[at + 2], rfb.framebuffer[at + 1], rfb.framebuffer[at]], [r, g, b], 'the typed key is drawn');
    assert.deepEqual(((await (await k.api('GET', '/api/redirection/sessions')).json()) as unknown[]).length, 1);
    ws.close();
    await until('the device slot is free', () => !sim.redirection.open.has('kvm'), 5_000);
    await until('the session is gone', async () => ((await (await k.api('GET', '/api/redirection/sessions')).json()) as unknown[]).length === 0, 5_000);
  });
}

test('SOL over the relay: the BIOS banner, typed bytes echoed as plain terminal bytes', async () => {
  const sim = plain();
  const { ws, console } = await k.sol(sim);
  await console.waitFor(`${sim.state.hostname} BIOS`);
  await console.waitFor('Booting from Hard Disk');
  const from = console.text.length;
  console.type('hello\r');
  await console.waitFor('hello\r\n> ', 5_000, from);
  ws.close();
  await until('the device slot is free', () => !sim.redirection.open.has('sol'), 5_000);
});

test('one session per mode per device: a second KVM is 409 while SOL on the same device opens', async () => {
  const sim = kit.fleet.devices[1]!;
  const first = await k.kvm(sim);
  const res = await k.api('POST', `/api/redirection/${k.idOf(sim)}/sessions`, { mode: 'kvm' });
  assert.equal(res.status, 409);
  assert.equal(codeOf((await res.json()) as Problem), 'GW_ERR_REDIRECTION_BUSY');
  const sol = await k.sol(sim);
  await sol.console.waitFor('BIOS');
  const state = (await (await k.api('GET', `/api/redirection/${k.idOf(sim)}`)).json()) as { sessions: Array<{ mode: string }> };
  assert.deepEqual(state.sessions.map((s) => s.mode).sort(), ['kvm', 'sol']);
  // A second ticket issued before the first was used: the device slot is checked again when it is used.
  first.ws.close();
  sol.ws.close();
  await until('both slots free', () => sim.redirection.open.size === 0, 5_000);
  const [a, b] = [await k.ticket(sim, 'kvm'), await k.ticket(sim, 'kvm')];
  const wsA = await k.relay(a.url);
  await assert.rejects(k.relay(b.url), (err: { status?: number }) => err.status === 409);
  wsA.close();
  await until('slot free', () => !sim.redirection.open.has('kvm'), 5_000);
});

test('a device that has the mode open to another client answers busy: 409 on the WebSocket, nothing relayed', async () => {
  const sim = kit.fleet.devices[3]!;
  sim.redirection.open.add('sol');
  try {
    const t = await k.ticket(sim, 'sol');
    await assert.rejects(k.relay(t.url), (err: { status?: number; body?: string }) => err.status === 409 && /GW_ERR_REDIRECTION_BUSY/.test(err.body ?? ''));
  } finally {
    sim.redirection.open.delete('sol');
  }
});

test('DELETE ends a session: the viewer is told why, and the device is freed', async () => {
  const sim = plain();
  const { ws, console } = await k.sol(sim);
  await console.waitFor('BIOS');
  const list = (await (await k.api('GET', '/api/redirection/sessions')).json()) as Array<{ id: string; user: string; bytesFromDevice: number }>;
  assert.equal(list.length, 1);
  assert.equal(list[0]!.user, 'admin');
  assert.ok(list[0]!.bytesFromDevice > 0);
  const closing = k.closed(ws);
  assert.equal((await k.api('DELETE', `/api/redirection/sessions/${list[0]!.id}`)).status, 204);
  assert.deepEqual(await closing, { code: 4003, reason: 'session ended by an operator' });
  await until('the device slot is free', () => !sim.redirection.open.has('sol'), 5_000);
  assert.equal((await k.api('DELETE', `/api/redirection/sessions/${list[0]!.id}`)).status, 404);
});

test('IDER without an image is 400, and 422 with the images plugin off; an unknown mode is 400', async () => {
  const res = await k.api('POST', `/api/redirection/${k.idOf(plain())}/sessions`, { mode: 'ider' });
  assert.equal(res.status, 400);
  assert.equal(codeOf((await res.json()) as Problem), 'GW_ERR_IDER_NO_MEDIUM');
  const off = await k.api('POST', `/api/redirection/${k.idOf(plain())}/sessions`, { mode: 'ider', cd: 'some-image' });
  assert.equal(off.status, 422);
  assert.equal(codeOf((await off.json()) as Problem), 'GW_ERR_IMAGES_DISABLED');
  assert.equal((await k.api('POST', `/api/redirection/${k.idOf(plain())}/sessions`, { mode: 'kvm', cd: 'some-image' })).status, 400);
  assert.equal((await k.api('POST', `/api/redirection/${k.idOf(plain())}/sessions`, { mode: 'vnc' })).status, 400);
});

test('the device password appears in no response, relayed frame or log line', async () => {
  const seen: string[] = [];
  const sim = kit.fleet.devices[4]!;
  seen.push(await (await k.api('GET', `/api/redirection/${k.idOf(sim)}`)).text());
  const t = await k.ticket(sim, 'sol');
  seen.push(JSON.stringify(t));
  const ws = await k.relay(t.url, {}, (socket) => socket.on('message', (data: Buffer) => seen.push(data.toString('latin1'))));
  ws.send(Buffer.from('x\r'));
  await new Promise((resolve) => setTimeout(resolve, 300));
  ws.close();
  await until('slot free', () => !sim.redirection.open.has('sol'), 5_000);
  await until('the end is logged', () => logs.some((l) => l.includes('remote console session ended')), 5_000);
  const all = [...seen, ...logs].join('\n');
  assert.ok(all.includes('remote console session started'));
  assert.ok(!all.includes(FLEET_PASSWORD), 'the password leaked');
  const ended = logs.filter((l) => l.includes('remote console session ended')).map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.ok(ended.some((e) => e['user'] === 'admin' && e['mode'] === 'sol' && typeof e['durationMs'] === 'number' && (e['bytesFromDevice'] as number) > 0 && (e['bytesToDevice'] as number) > 0));
});
