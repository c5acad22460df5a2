/**
 * Clients of the redirection benchmark: RFB straight to a simulated device (the redirection sign-in
 * done here with the gateway's own client library) and through the gateway's relay WebSocket.
 */
import type { Duplex } from 'node:stream';
import { WebSocket, createWebSocketStream } from 'ws';
import { openRedirectionSession } from '../../workers/amt/redirection/redirection-session.js';
import { KVM_MODE } from '../../plugins/redirection/modes/kvm.js';
import { RfbClient } from '../helpers/rfb-client.js';
import type { GatewayClient } from './gateway-client.js';

/** RFB without the gateway: the redirection sign-in done here, to the device or to a bare proxy in front of it (`port`). */
export async function directKvm(address: string, password: string, port = 16994): Promise<RfbClient> {
  const outcome = await openRedirectionSession({ address, port, tls: false }, { id: 'bench', username: 'admin', password }, 'kvm', KVM_MODE.begin);
  if (!outcome.ok) throw new Error(`direct KVM to ${address}: ${outcome.error.code}`);
  const { stream, leftover } = outcome.session;
  if (leftover.length) stream.unshift(leftover);
  stream.resume();
  const rfb = new RfbClient(stream);
  await rfb.handshake();
  return rfb;
}

/** A session's WebSocket, its handlers set before it opens (the device's first bytes may come with the upgrade). */
export async function relaySocket(client: GatewayClient, deviceId: string, mode: 'kvm' | 'sol'): Promise<{ ws: WebSocket; stream: Duplex }> {
  const { url } = await client.json<{ url: string }>('POST', `/api/redirection/${deviceId}/sessions`, { mode });
  const ws = new WebSocket(client.url.replace(/^http/, 'ws') + url);
  const stream = createWebSocketStream(ws);
  stream.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, stream };
}

export async function relayKvm(client: GatewayClient, deviceId: string): Promise<{ ws: WebSocket; rfb: RfbClient }> {
  const { ws, stream } = await relaySocket(client, deviceId, 'kvm');
  const rfb = new RfbClient(stream);
  await rfb.handshake();
  return { ws, rfb };
}
