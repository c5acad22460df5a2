/**
 * The `presence` service (CONTRACT section 8): a machine is connected while it answered the online
 * monitor's last probe, or was just found by a scan. The SOAP service asks it which machines are
 * connected and describes the machine of each DeviceStatusChanged it notifies.
 */
import type { AmtSiteSettings } from '../../core/plugin-api.js';
import type { Device, DeviceRegistry } from 'amt-gateway/devices';
import type { ConnectedMachine, PresenceService } from './api.js';
import type { PresenceState, PresenceStates } from './presence-states.js';

export function createPresenceService(devices: DeviceRegistry, states: PresenceStates, amt: AmtSiteSettings): PresenceService {
  const managementPorts = [amt.ports.http, amt.ports.https].filter((p) => p > 0);

  const machine = (device: Device, state: Readonly<PresenceState> | undefined): ConnectedMachine => {
    const open = device.openPorts.filter((p) => managementPorts.includes(p));
    const ports = open.length ? open : state?.port ? [state.port] : [device.tls ? amt.ports.https : amt.ports.http];
    return {
      deviceId: device.id,
      ipAddress: device.ipAddress,
      hostname: device.hostname,
      fqdn: device.hostname && device.domain ? `${device.hostname}.${device.domain}` : device.hostname,
      uuid: device.uuid ?? null,
      ports,
      since: state?.since ?? device.firstSeen,
      lastSeen: state?.lastSeen ?? device.lastSeen,
    };
  };

  /** Devices holding a CIRA tunnel: connected whatever the local network's probes say. */
  const tunnelled = (): Device[] => devices.list().filter((d) => d.connections?.includes('cira'));

  const connected = (): ConnectedMachine[] => {
    const out: ConnectedMachine[] = [];
    const seen = new Set<string>();
    for (const device of tunnelled()) {
      seen.add(device.id);
      out.push(machine(device, states.get(device.id)));
    }
    for (const [id, state] of states.entries()) {
      if (!state.online || !state.answering || seen.has(id)) continue;
      const device = devices.get(id);
      if (device) out.push(machine(device, state));
    }
    return out.sort((a, b) => (a.deviceId < b.deviceId ? -1 : a.deviceId > b.deviceId ? 1 : 0));
  };

  return {
    connected,
    findConnected(systemName) {
      const name = systemName.toLowerCase();
      if (name === '') return undefined;
      const named = (found: ConnectedMachine): boolean => [found.hostname, found.fqdn, found.ipAddress, found.uuid].some((v) => v?.toLowerCase() === name);
      for (const device of tunnelled()) {
        const found = machine(device, states.get(device.id));
        if (named(found)) return found;
      }
      for (const [id, state] of states.entries()) {
        if (!state.online || !state.answering) continue;
        const device = devices.get(id);
        if (!device) continue;
        const found = machine(device, state);
        if ([found.hostname, found.fqdn, found.ipAddress, found.uuid].some((v) => v?.toLowerCase() === name)) return found;
      }
      return undefined;
    },
    describe(deviceId) {
      const device = devices.get(deviceId);
      return device ? machine(device, states.get(deviceId)) : undefined;
    },
  };
}
