/**
 * Clients of the redirection benchmark: RFB straight to a simulated device (the redirection sign-in
 * done here with the gateway's own client library), through the gateway's relay WebSocket, and
 * through a bare WebSocket relay (the sign-in done here, over the WebSocket).
 */
import type { Duplex } from 'node:stream';
import { WebSocket, createWebSocketStream } from 'ws';
import { openRedirectionSession } from '../../workers/amt/redirection/redirection-session.js';
import { KVM_MODE } from '../../plugins/redirection/modes/kvm.js';
import type { DeviceTarget } from '../../workers/amt/device-target.js';
import { RfbClient } from '../helpers/rfb-client.js';
import type { GatewayClient } from './gateway-client.js';

/** The redirection sign-in and KVM set-up to `target` with the gateway's own client library, then RFB. */
async function signedInKvm(target: DeviceTarget, password: string): Promise<RfbClient> {
  const outcome = await openRedirectionSession(target, { id: 'bench', username: 'admin', password }, 'kvm', KVM_MODE.begin);
  if (!outcome.ok) throw new Error(`KVM to ${target.channel?.key ?? target.address}: ${outcome.error.code}`);
  const { stream, leftover } = outcome.session;
  if (leftover.length) stream.unshift(leftover);
  stream.resume();
  const rfb = new RfbClient(stream);
  await rfb.handshake();
  return rfb;
}

/** RFB without the gateway: the redirection sign-in done here, to the device or to a bare proxy in front of it (`port`). */
export function directKvm(address: string, password: string, port = 16994): Promise<RfbClient> {
  return signedInKvm({ address, port, tls: false }, password);
}

/**
 * RFB through a bare WebSocket relay at `url` (fixtures/ws-pipe-relay.mjs): the WebSocket wrapped as
 * relayKvm wraps the gateway's, and the same sign-in as directKvm run over it (the stream given as
 * the target's channel, which the session code accepts in place of a TCP connection).
 */
export async function wsPipeKvm(url: string, password: string): Promise<RfbClient> {
  const { stream } = await openWebSocketStream(url);
  const host = new URL(url).hostname;
  return signedInKvm({ address: host, port: 16994, tls: false, channel: { key: url, connect: async () => stream } }, password);
}

/** A WebSocket wrapped as a stream, its handlers set before it opens (the device's first bytes may come with the upgrade). */
async function openWebSocketStream(url: string): Promise<{ ws: WebSocket; stream: Duplex }> {
  const ws = new WebSocket(url);
  const stream = createWebSocketStream(ws);
  stream.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, stream };
}

/** A session's WebSocket through the gateway's relay. */
export async function relaySocket(client: GatewayClient, deviceId: string, mode: 'kvm' | 'sol'): Promise<{ ws: WebSocket; stream: Duplex }> {
  const { url } = await client.json<{ url: string }>('POST', `/api/redirection/${deviceId}/sessions`, { mode });
  return openWebSocketStream(client.url.replace(/^http/, 'ws') + url);
}

export async function relayKvm(client: GatewayClient, deviceId: string): Promise<{ ws: WebSocket; rfb: RfbClient }> {
  const { ws, stream } = await relaySocket(client, deviceId, 'kvm');
  const rfb = new RfbClient(stream);
  await rfb.handshake();
  return { ws, rfb };
}
