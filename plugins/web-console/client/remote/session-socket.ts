/** Opens a remote console session: asks for a ticket, then the WebSocket it names (same origin). */
import { api } from '../api.js';

import type { SessionTicket } from '../shapes.js';

export type { SessionTicket };

export async function openSessionSocket(deviceId: string, mode: 'kvm' | 'sol'): Promise<WebSocket> {
  const ticket = await api<SessionTicket>('POST', `/redirection/${encodeURIComponent(deviceId)}/sessions`, { mode });
  const ws = new WebSocket(`${location.origin.replace(/^http/, 'ws')}${ticket.url}`);
  ws.binaryType = 'arraybuffer';
  return ws;
}

/** What a close means to the operator: the gateway's reason, or a plain word. */
export function closeText(event: CloseEvent): string {
  if (event.reason) return event.reason;
  return event.code === 1000 ? 'session closed' : `connection lost (${event.code})`;
}
