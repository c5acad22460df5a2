/**
 * SOL holds against everything a device may send in a session (AMT-NOTES: 0x21, 0x23, 0x25, 0x29,
 * 0x2A, 0x2B), over LAN, TLS and CIRA tunnels: the host's serial lines (0x29) in the same read as the
 * settings reply (the bytes left over from the set-up), on a change mid-session and across a reset,
 * and a device that puts pongs, heartbeats, line reports and an end-SOL reply around and inside its
 * data. The viewer sees the terminal bytes and nothing else; the session stays open. A device that
 * breaks the framing in the leftover bytes ends the session as a protocol error, logged and audited
 * like any other end.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { startFleet, type Fleet } from '../../sim/index.js';
import type { SimDevice } from '../../sim/sim-device.js';
import { LINE_CONTROL, LINE_STATUS } from '../../sim/redirection/sol-host.js';
import { SolClient } from '../../helpers/sol-client.js';
import { until } from '../../helpers/poll.js';
import type { Device } from '../../../plugins/rest-api/api.js';
import { ciraPort } from '../cira/gateway-cira-helpers.js';
import { startFleetGateway, type FleetGateway } from '../remote-monitor/fixtures/fleet-gateway.js';

const MPS = { username: 'mps-sol', password: 'Mps-P@ssw0rd-sol' };
let kit: FleetGateway;
let cira: Fleet;
const logs: string[] = [];

before(async () => {
  kit = await startFleetGateway({
    fleet: { count: 2, base: '127.63.5.1', tlsEvery: 2, provisioningModes: [1], seed: 'sol-messages' },
    range: '127.63.5.1-2',
    plugins: ['rest-api', 'redirection', 'power-mgmt', 'cira'],
    pluginConfig: { cira: { options: { port: 0, keepAliveIntervalSeconds: 1, keepAliveTimeoutSeconds: 3, forwardSettleMs: 50 } } },
    gateway: { logs },
  });
  assert.equal((await kit.gw.request('POST', '/api/cira/accounts', { token: kit.token, body: MPS })).status, 201);
  const ca = ((await (await kit.gw.request('GET', '/api/cira/certificate', { token: kit.token })).json()) as { pem: string }).pem;
  cira = await startFleet({ count: 2, base: '127.63.6.1', rmcpPort: 0, seed: 'sol-messages-cira', tlsEvery: 2, provisioningModes: [1], cira: { host: '127.0.0.1', port: ciraPort(logs), ...MPS, ca, keepAliveSeconds: 1, reconnectMs: 0 } });
});

after(async () => {
  await cira?.stop();
  await kit?.cleanup();
});

const api = (method: string, path: string, body?: unknown) => kit.gw.request(method, path, { token: kit.token, ...(body === undefined ? {} : { body }) });

/** The gateway's device for a simulated one (a tunnelled one once it has been read through its tunnel). */
async function deviceOf(sim: SimDevice): Promise<Device> {
  if (!sim.cira) return kit.devices.get(sim.address)!;
  await sim.cira.waitFor('connected');
  return until('the tunnelled device is read', async () => {
    const list = (await (await api('GET', '/api/devices')).json()) as Device[];
    const found = list.find((d) => d.uuid === sim.config.uuid);
    return found?.authStatus === 'ok' ? found : undefined;
  });
}

/** Opens a SOL session; the console listens before the socket opens (the device's first bytes may come with the upgrade). */
async function openSol(device: Device): Promise<{ ws: WebSocket; console: SolClient; closed: Promise<{ code: number; reason: string }> }> {
  const res = await api('POST', `/api/redirection/${device.id}/sessions`, { mode: 'sol' });
  assert.equal(res.status, 201, await res.clone().text());
  const { url } = (await res.json()) as { url: string };
  const ws = new WebSocket(kit.gw.url.replace(/^http/, 'ws') + url);
  const console = new SolClient(ws);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { ws, console, closed };
}

/** Types `text` and waits for exactly its echo: nothing else reaches the viewer in between. */
async function typeAndSeeOnly(console: SolClient, text: string): Promise<void> {
  const from = console.text.length;
  const echo = text.replace(/\r/g, '\r\n> ');
  console.type(text);
  await console.waitFor(echo, 5_000, from);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(JSON.stringify(console.text.slice(from)), JSON.stringify(echo), 'the viewer saw bytes other than the echo');
}

const paths: Array<[string, () => SimDevice]> = [
  ['a LAN device (16994)', () => kit.fleet.devices[0]!],
  ['a TLS device (16995)', () => kit.fleet.devices[1]!],
  ['a CIRA tunnel (16994 in the tunnel)', () => cira.devices[0]!],
  ['a CIRA tunnel (16995 with TLS in the tunnel)', () => cira.devices[1]!],
];

for (const [path, simOf] of paths) {
  test(`SOL through ${path} skips every message the device may send besides data and stays open`, async () => {
    const sim = simOf();
    const host = sim.redirection.solHost;
    const device = await deviceOf(sim);
    const sent = { ...host.counters };
    const { ws, console, closed } = await openSol(device);
    // The lines came in the same write as the settings reply: left over from the set-up.
    await console.waitFor(`${sim.state.hostname} BIOS`);
    assert.equal(host.counters.linesSent, sent.linesSent + 1);

    host.setLines(LINE_CONTROL.rts | LINE_CONTROL.dtr | LINE_CONTROL.break, LINE_STATUS.systemPower);
    assert.equal(host.counters.linesSent, sent.linesSent + 2);
    await typeAndSeeOnly(console, 'after a line change\r');

    // A reset drops the lines and raises them again: two reports, mid-session.
    const reset = await api('POST', `/api/power/${device.id}`, { action: 'reset' });
    assert.equal(reset.status, 200, await reset.clone().text());
    assert.equal(host.counters.linesSent, sent.linesSent + 4);
    await typeAndSeeOnly(console, 'after a reset\r');

    host.chatter = true;
    try {
      await typeAndSeeOnly(console, 'chatter\r');
      await typeAndSeeOnly(console, 'more chatter\r');
    } finally {
      host.chatter = false;
    }
    assert.ok(host.counters.pongsSent >= sent.pongsSent + 4 && host.counters.endRepliesSent >= sent.endRepliesSent + 2);

    assert.equal(ws.readyState, WebSocket.OPEN);
    const [session] = (await (await api('GET', `/api/redirection/${device.id}`)).json() as { sessions: Array<{ id: string }> }).sessions;
    ws.close();
    await closed;
    await until('the device slot is free', () => !sim.redirection.open.has('sol'), 5_000);
    const ended = await until('the end is logged', () => logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['msg'] === 'remote console session ended' && l['sessionId'] === session?.id));
    assert.equal(ended['reason'], 'viewer');
  });
}

test('a device that breaks the SOL framing in the bytes left over from the set-up: the session ends as a protocol error, logged and counted like any end', async () => {
  const sim = kit.fleet.devices[0]!;
  const device = await deviceOf(sim);
  sim.redirection.solHost.unknownMessageAtStart = true;
  try {
    const { closed } = await openSol(device);
    assert.deepEqual(await closed, { code: 4006, reason: 'the device broke the redirection protocol' });
  } finally {
    sim.redirection.solHost.unknownMessageAtStart = false;
  }
  const ended = await until('the end is logged', () =>
    logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['msg'] === 'remote console session ended' && l['reason'] === 'protocol'),
  );
  assert.equal(ended['deviceId'], device.id);
  assert.ok(!logs.some((l) => l.includes('could not start')), 'the session failed to start instead of ending');
  await until('no session is listed', async () => ((await (await api('GET', '/api/redirection/sessions')).json()) as unknown[]).length === 0, 5_000);
  // The slot is free: a new session on the device opens and shows its console.
  const again = await openSol(device);
  await again.console.waitFor('BIOS');
  again.ws.close();
  await until('the device slot is free', () => !sim.redirection.open.has('sol'), 5_000);
});
