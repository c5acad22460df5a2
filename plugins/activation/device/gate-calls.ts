/**
 * Every place the activation plugin meets the device gate, in this one file: the agent's connection
 * registered as a device path (`registerPath`, kind `activation`), and each named operation run as
 * one gate pass along it (`runAlong`: the operation runs on this thread, where the agent's channel
 * lives, signed in with the credential the flow holds, which the gate never hands back). The gate
 * decides as for any path: the device's turn (one connection at a time), its one sign-in memory
 * (failed logins stay below its lockout), and that only a proven path carries anything of the
 * device's. The WS-Management inside an operation goes through {@link FirmwareCalls} alone.
 */
import type { AlongCredential, Device, DeviceGate, DevicePathOffer, DeviceRegistry } from 'amt-gateway/devices';
import { isAmtError } from '../../../workers/amt/errors.js';
import { LATE_ANSWER_GRACE_MS } from '../session/agent-session.js';
import type { ConnectedAgent, SessionDirectory } from '../session/session-directory.js';
import { FirmwareCalls } from './firmware-calls.js';

export const PATH_KIND = 'activation';
/** Through the agent the firmware's local management port: plain HTTP (LMS on 16992). */
const LOCAL_PORT = 16992;

/** Registers the agents as a way to their devices (for activation's own operations, and any other while they are connected). */
export function registerAgentPath(gate: DeviceGate, sessions: SessionDirectory, plugin: string): void {
  gate.registerPath({
    kind: PATH_KIND,
    plugin,
    async reach(device, service): Promise<DevicePathOffer | null> {
      const agent = device.uuid ? sessions.get(device.uuid) : undefined;
      if (!agent || agent.session.closed || service !== 'management') return null;
      return {
        identity: agent.proven ? 'proven' : 'unverified',
        port: LOCAL_PORT,
        tls: false,
        channel: agent.channel,
        // One request at a time goes through an agent; the gate's turn for the device already ensures it.
        schedule: (task) => task(),
      };
    },
  });
}

/** An unprovisioned device the gateway does not list yet, as the gate needs to name it. */
function unlistedDevice(uuid: string, address: string): Device {
  const now = new Date().toISOString();
  return {
    id: `activation:${uuid}`,
    ipAddress: address,
    hostname: null,
    firmwareVersion: null,
    provisioningState: 'PRE',
    uuid,
    tls: false,
    openPorts: [],
    authStatus: 'unauthorized',
    online: false,
    connections: [],
    firstSeen: now,
    lastSeen: now,
    lastScanId: null,
  };
}

export interface DeviceLink {
  /**
   * Runs one named operation on the device behind `agent`, signed in with `credential` (one the flow
   * holds, or the device's stored one by id), as one pass of the device gate along the agent's path.
   * @throws the operation's own problem, the agent's (timeout, gone), or the gate's
   */
  run<T>(agent: ConnectedAgent, credential: AlongCredential, name: string, operation: (calls: FirmwareCalls) => Promise<T>): Promise<T>;
}

export function createDeviceLink(gate: DeviceGate, devices: DeviceRegistry, stepTimeoutMs: number): DeviceLink {
  return {
    async run<T>(agent: ConnectedAgent, credential: AlongCredential, name: string, operation: (calls: FirmwareCalls) => Promise<T>): Promise<T> {
      const device = devices.findByUuid(agent.uuid) ?? unlistedDevice(agent.uuid, agent.session.remoteAddress);
      // A problem thrown by the operation itself (a refusal it judged) keeps its code and text.
      let own: unknown;
      agent.session.lastFailure = null;
      try {
        return await gate.runAlong(
          { address: device.ipAddress, device },
          PATH_KIND,
          credential,
          async (client) => {
            const calls = new FirmwareCalls(client);
            try {
              return await operation(calls);
            } catch (error) {
              if (!isAmtError(error)) own = error;
              throw error;
            }
          },
          // The session bounds each exchange (stepTimeoutMs, after a grace when the one before was given up on); these only back it.
          { timeouts: { connectMs: 5_000, firstByteMs: stepTimeoutMs + LATE_ANSWER_GRACE_MS + 1_000, totalMs: stepTimeoutMs + LATE_ANSWER_GRACE_MS + 2_000 } },
        );
      } catch (error) {
        throw own ?? agent.session.lastFailure ?? Object.assign(error as Error, { operation: name });
      }
    },
  };
}
