/**
 * A CIRA device's remote console: KVM and SOL sessions run over APF channels to 16994 in its tunnel
 * (16995 with TLS and the pinned certificate inside the channel for a device that forwards only the
 * TLS ports), the device having no LAN listener at all.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket, createWebSocketStream } from 'ws';
import { RfbClient, FORMATS } from '../../helpers/rfb-client.js';
import { SolClient } from '../../helpers/sol-client.js';
import { encodeScreen, renderScreen } from '../../sim/redirection/redir-screen.js';
import type { Device } from '../../../plugins/rest-api/api.js';
import { until } from '../../helpers/poll.js';
import { startCiraKit, type CiraKit } from './cira-kit.js';

let kit: CiraKit;

before(async () => {
  kit = await startCiraKit(['redirection'], '127.63.3.1', 'cira-redir');
});

after(async () => {
  await kit?.stop();
});

/** Opens a session's WebSocket; `attach` runs before it opens (the device's first bytes may come with the upgrade). */
async function relay(device: Device, mode: 'kvm' | 'sol', attach: (ws: WebSocket) => void): Promise<WebSocket> {
  const res = await kit.gw.request('POST', `/api/redirection/${device.id}/sessions`, { token: kit.token, body: { mode } });
  assert.equal(res.status, 201, await res.clone().text());
  const { url } = (await res.json()) as { url: string };
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(kit.gw.url.replace(/^http/, 'ws') + url);
    attach(ws);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_q, r) => reject(new Error(`upgrade refused: ${r.statusCode}`)));
  });
}

for (const index of [0, 1]) {
  test(`KVM and SOL through the CIRA tunnel (${index === 1 ? 'TLS ports 16993/16995' : 'ports 16992/16994'})`, async () => {
    const sim = kit.fleet.devices[index]!;
    assert.equal(sim.config.redirectionPort, null, 'no LAN listener: the session can only go through the tunnel');
    assert.deepEqual(sim.cira!.forwardPorts, index === 1 ? [16993, 16995] : [16992, 16994]);
    const device = await kit.deviceOf(sim);
    const channelsBefore = sim.cira!.counters.channelsOpened;
    let rfb!: RfbClient;
    const ws = await relay(device, 'kvm', (socket) => void (rfb = new RfbClient(createWebSocketStream(socket))));
    const init = await rfb.handshake();
    assert.equal(init.name, 'Intel(r) AMT KVM');
    rfb.setPixelFormat(32);
    rfb.requestUpdate(false);
    await rfb.readUpdate();
    assert.ok(rfb.framebuffer.equals(encodeScreen(renderScreen(sim.state), FORMATS[32])));
    rfb.requestUpdate(true);
    rfb.key(0x42);
    await rfb.readUpdate();
    assert.deepEqual(sim.redirection.typed, [0x42]);
    let console!: SolClient;
    const sol = await relay(device, 'sol', (socket) => void (console = new SolClient(socket)));
    await console.waitFor(`${sim.state.hostname} BIOS`);
    console.type('via tunnel\r');
    await console.waitFor('via tunnel\r\n> ');
    assert.ok(sim.cira!.counters.channelsOpened >= channelsBefore + 2);
    ws.close();
    sol.close();
    await until('the device slots are free', async () => sim.redirection.open.size === 0 || undefined);
    assert.equal(sim.redirection.counters.signInFailures, 0);
  });
}

test('a KVM frame through the tunnel: the device may send it with few WINDOW_ADJUST round trips, and its many small CHANNEL_DATA reach the viewer in few WebSocket messages', async () => {
  const sim = kit.fleet.devices[0]!;
  const device = await kit.deviceOf(sim);
  let rfb!: RfbClient;
  let messages = 0;
  const ws = await relay(device, 'kvm', (socket) => {
    rfb = new RfbClient(createWebSocketStream(socket));
    socket.on('message', () => void messages++);
  });
  await rfb.handshake();
  rfb.setPixelFormat(32);
  const { dataMessagesSent, windowAdjustsReceived } = sim.cira!.counters;
  const messagesBefore = messages;
  rfb.requestUpdate(false);
  await rfb.readUpdate();
  const pieces = sim.cira!.counters.dataMessagesSent - dataMessagesSent;
  // 640x400 at 4 bytes a pixel, in the simulator's uneven pieces of 1 byte to 4 KiB.
  assert.ok(pieces > 1000, `the device sent the frame in ${pieces} CHANNEL_DATA`);
  // The session channel's window (512 KiB by default, topped up at half) against WS-Management's 32 KiB (some 60 round trips a frame).
  const adjusts = sim.cira!.counters.windowAdjustsReceived - windowAdjustsReceived;
  assert.ok(adjusts <= 6, `${adjusts} WINDOW_ADJUSTs for one frame`);
  const relayed = messages - messagesBefore;
  assert.ok(relayed * 10 < pieces, `${pieces} CHANNEL_DATA became ${relayed} WebSocket messages`);
  ws.close();
  await until('the device slot is free', async () => sim.redirection.open.size === 0 || undefined);
});
