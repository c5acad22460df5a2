/**
 * The `presence` service (CONTRACT section 8): a machine is connected while the device is online,
 * as presence in the device domain merged it from its paths (an answer on the LAN, a verified CIRA
 * tunnel), so that SOAP, `GET /api/devices` and the hub's DeviceStatusChanged agree. The SOAP service
 * asks it which machines are connected and describes the machine of each DeviceStatusChanged it notifies.
 */
import type { Device, DeviceRegistry, DeviceSettings } from 'amt-gateway/devices';
import type { ConnectedMachine, PresenceService } from './api.js';
import type { PresenceState, PresenceStates } from './presence-states.js';

export function createPresenceService(devices: DeviceRegistry, states: PresenceStates, sitePorts: DeviceSettings['ports']): PresenceService {
  const managementPorts = [sitePorts.http, sitePorts.https].filter((p) => p > 0);

  const machine = (device: Device, state: Readonly<PresenceState> | undefined): ConnectedMachine => {
    const open = device.openPorts.filter((p) => managementPorts.includes(p));
    const ports = open.length ? open : state?.port ? [state.port] : [device.tls ? sitePorts.https : sitePorts.http];
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

  const connected = (): ConnectedMachine[] => {
    const out: ConnectedMachine[] = [];
    for (const device of devices.list()) if (device.online) out.push(machine(device, states.get(device.id)));
    return out.sort((a, b) => (a.deviceId < b.deviceId ? -1 : a.deviceId > b.deviceId ? 1 : 0));
  };

  return {
    connected,
    findConnected(systemName) {
      const name = systemName.toLowerCase();
      if (name === '') return undefined;
      const named = (found: ConnectedMachine): boolean => [found.hostname, found.fqdn, found.ipAddress, found.uuid].some((v) => v?.toLowerCase() === name);
      for (const device of devices.list()) {
        if (!device.online) continue;
        const found = machine(device, states.get(device.id));
        if (named(found)) return found;
      }
      return undefined;
    },
    describe(deviceId) {
      const device = devices.get(deviceId);
      return device ? machine(device, states.get(deviceId)) : undefined;
    },
  };
}
