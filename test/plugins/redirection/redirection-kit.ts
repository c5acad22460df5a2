/** Shared set-up of the redirection tests: a fleet, a gateway with the plugin, and relay clients. */
import { WebSocket, createWebSocketStream } from 'ws';
import type { SimDevice } from '../../sim/sim-device.js';
import { RfbClient } from '../../helpers/rfb-client.js';
import { SolClient } from '../../helpers/sol-client.js';
import type { FleetGateway } from '../remote-monitor/fixtures/fleet-gateway.js';

export interface Problem {
  type: string;
  status: number;
  detail: string;
}

export interface Ticket {
  id: string;
  mode: string;
  deviceId: string;
  url: string;
  expiresAt: string;
}

export const codeOf = (problem: Problem) => problem.type.replace(/^.*:/, '');

export function redirectionKit(kit: () => FleetGateway) {
  const idOf = (sim: SimDevice) => kit().devices.get(sim.address)!.id;
  const api = (method: string, path: string, body?: unknown, token = kit().token) => kit().gw.request(method, path, { token, ...(body === undefined ? {} : { body }) });
  const ticket = async (sim: SimDevice, mode: string, token = kit().token): Promise<Ticket> => {
    const res = await api('POST', `/api/redirection/${idOf(sim)}/sessions`, { mode }, token);
    if (res.status !== 201) throw new Error(`session ${mode} for ${sim.address}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Ticket;
  };
  /**
   * Opens the relay WebSocket of a ticket; rejects with the HTTP status of a refused upgrade. `attach`
   * runs before the socket opens, as a browser's handlers are set: the device's first bytes may
   * arrive with the upgrade's answer.
   */
  const relay = (url: string, headers: Record<string, string> = {}, attach?: (ws: WebSocket) => void): Promise<WebSocket> =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(kit().gw.url.replace(/^http/, 'ws') + url, { headers });
      attach?.(ws);
      ws.once('open', () => resolve(ws));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode} ${body}`), { status: res.statusCode, body })));
      });
      ws.once('error', reject);
    });
  const closed = (ws: WebSocket): Promise<{ code: number; reason: string }> =>
    new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  const kvm = async (sim: SimDevice) => {
    let rfb: RfbClient | undefined;
    const ws = await relay((await ticket(sim, 'kvm')).url, {}, (socket) => void (rfb = new RfbClient(createWebSocketStream(socket))));
    return { ws, rfb: rfb!, init: await rfb!.handshake() };
  };
  const sol = async (sim: SimDevice) => {
    let console: SolClient | undefined;
    const ws = await relay((await ticket(sim, 'sol')).url, {}, (socket) => void (console = new SolClient(socket)));
    return { ws, console: console! };
  };
  return { idOf, api, ticket, relay, closed, kvm, sol };
}

