/**
 * The agents connected now, by the UUID their firmware reported: at most one per device. An entry is
 * `proven` once the agent showed it is that device's own (an unprovisioned device, which has no
 * secret of ours yet; or the AMT password stored for it): only then does the device gate send
 * anything of the device's through it.
 */
import type { DeviceChannel } from 'amt-gateway/devices';
import { agentChannel } from './agent-channel.js';
import type { AgentSession } from './agent-session.js';

export interface ConnectedAgent {
  session: AgentSession;
  uuid: string;
  channel: DeviceChannel;
  proven: boolean;
}

export interface SessionDirectory {
  /** Claims the UUID for `session`; false when another agent holds it now. */
  claim(uuid: string, session: AgentSession): ConnectedAgent | null;
  get(uuid: string): ConnectedAgent | undefined;
}

export function createSessionDirectory(): SessionDirectory {
  const byUuid = new Map<string, ConnectedAgent>();
  return {
    claim(uuid, session) {
      if (byUuid.has(uuid)) return null;
      const entry: ConnectedAgent = { session, uuid, channel: agentChannel(session), proven: false };
      byUuid.set(uuid, entry);
      session.onClose(() => {
        if (byUuid.get(uuid) === entry) byUuid.delete(uuid);
      });
      return entry;
    },
    get: (uuid) => byUuid.get(uuid.toLowerCase()),
  };
}
