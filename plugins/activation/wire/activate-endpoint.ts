/**
 * The WebSocket endpoint agents dial (`/activate`): who may connect (source networks: the option,
 * else the site's allowed networks as the device gate applies them), how many at once (in all and
 * per address), and each accepted connection handed to the session driver. rpc-go sends no
 * credential of its own: the source bounds, and what each action demands of the agent, are the gate.
 */
import type { IncomingMessage } from 'node:http';
import { WebSocketServer } from 'ws';
import { createConnectionBudget } from '../../../core/net/connection-budget.js';
import { insideNetworks, parseCidr, parseIpv4, type Cidr } from '../../../core/net/ipv4.js';
import { refuseUpgrade, type Logger, type UpgradeHandler } from '../../../core/plugin-api.js';
import { ActivationErrors } from '../errors.js';
import { AgentSession, type AgentSessionOptions } from '../session/agent-session.js';

export interface EndpointOptions {
  allowedNetworks: readonly string[] | null;
  /** The device gate's networks rule, used when `allowedNetworks` is null. */
  gateAllows(address: string): boolean;
  maxSessions: number;
  maxSessionsPerAddress: number;
  maxMessageBytes: number;
  session: Omit<AgentSessionOptions, 'logger'>;
  logger: Logger;
  /** Runs the session to its end. */
  drive(session: AgentSession): Promise<void>;
}

/** An IPv4 address as text, `::ffff:` mappings unwrapped. */
export function clientAddress(req: IncomingMessage): string {
  const address = req.socket.remoteAddress ?? '';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

export function createActivateEndpoint(options: EndpointOptions): { upgrade: UpgradeHandler; close(): void; readonly sessions: number } {
  const networks = options.allowedNetworks?.map(parseCidr).filter((n): n is Cidr => n !== undefined) ?? null;
  const allows = (address: string) => {
    if (!networks) return options.gateAllows(address);
    const ip = parseIpv4(address);
    return ip !== undefined && insideNetworks(ip, ip, networks);
  };
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes, perMessageDeflate: false });
  const budget = createConnectionBudget({ total: options.maxSessions, perAddress: options.maxSessionsPerAddress });
  const open = new Set<AgentSession>();

  const upgrade: UpgradeHandler = (req, socket, head) => {
    socket.on('error', () => undefined);
    const address = clientAddress(req);
    if (!allows(address)) {
      options.logger.warn('activation agent refused: source address not allowed', { remoteAddress: address });
      return refuseUpgrade(socket, ActivationErrors.sourceRefused(address));
    }
    // Counted from the upgrade on, before the handshake completes.
    const ticket = budget.admit(address);
    if ('refused' in ticket) {
      return refuseUpgrade(socket, ActivationErrors.busy(ticket.refused === 'total' ? `${options.maxSessions} agents are connected` : `${options.maxSessionsPerAddress} agents are connected from ${address}`));
    }
    const release = () => ticket.release();
    socket.once('close', release);
    wss.handleUpgrade(req, socket, head, (ws) => {
      const session = new AgentSession(ws, address, { ...options.session, logger: options.logger });
      open.add(session);
      session.onClose(() => {
        open.delete(session);
        release();
      });
      void options.drive(session);
    });
  };

  return {
    upgrade,
    get sessions() {
      return budget.held;
    },
    close() {
      for (const session of open) session.finish('error', 'the gateway is shutting down');
      wss.close();
    },
  };
}
