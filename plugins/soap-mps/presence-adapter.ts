import type { ConnectedMachine, PresenceService } from 'amt-gateway/remote-monitor';

/** What the SOAP service needs to know about connected machines. */
export interface MachinePresence {
  /** True while the machine named `systemName` (hostname, FQDN, IP address or UUID, any case) is connected. */
  isConnected(systemName: string): boolean;
  /** The SystemName of every connected machine now, in a stable order. */
  connectedNames(): string[];
  /** The machine behind a device id, connected or not. */
  describe(deviceId: string): ConnectedMachine | undefined;
}

/** The name a machine is reported under: its FQDN, else its hostname, else its IP address. */
export function systemNameOf(machine: Pick<ConnectedMachine, 'fqdn' | 'hostname' | 'ipAddress'>): string {
  return machine.fqdn || machine.hostname || machine.ipAddress;
}

/** Adapts the remote-monitor plugin's `presence` service (CONTRACT section 8: "connected"). */
export function createPresenceAdapter(presence: PresenceService): MachinePresence {
  return {
    isConnected: (systemName) => systemName !== '' && presence.findConnected(systemName) !== undefined,
    connectedNames: () => presence.connected().map(systemNameOf),
    describe: (deviceId) => presence.describe(deviceId),
  };
}
