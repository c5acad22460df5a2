/**
 * What a CIRA tunnel means to the rest of the gateway: the device it belongs to (by UUID, the same
 * device a LAN scan finds) carries `cira` in its connections while the tunnel is up; the tunnel is a
 * path of the device gate (`registerPath`), so the device's operations and diagnostics go through it
 * (on the main thread, over APF channels, within a concurrency bound) once it is proven to be the
 * device; it is read like a scanned device through the gate; and a verified tunnel's up and down are
 * reported to presence (the `devicePresence` service), which publishes the device's
 * DeviceStatusChanged that the SOAP service and the hub carry on.
 */
import type { PluginContext } from '../../core/plugin-api.js';
import type { Device, DevicePathOffer, DevicePathPurpose, DevicePresence, DeviceRegistry, DeviceService } from 'amt-gateway/devices';
import type { CiraConnection, CiraService, CiraTunnelEvent } from './api.js';
import { AMT_PORTS } from '../../workers/amt/amt-ports.js';
import { createTunnelInterrogator } from './integration-interrogate.js';
import { createTunnelChannel } from './tunnel-channel.js';
import { createTunnelOperationBound, type TunnelOperationLimits } from './tunnel-operations.js';
import type { TunnelDirectory } from './cluster/tunnel-directory.js';

const { http: HTTP_PORT, https: TLS_PORT, redirection: REDIRECTION_PORT, redirectionTls: REDIRECTION_TLS_PORT } = AMT_PORTS;
/** Bound of each request of a read through a tunnel. */
const READ_TIMEOUT_MS = 15_000;


/** Known from the local network (a scan found it there): a tunnel claiming its UUID must prove it is that device. */
const knownFromLan = (device: Readonly<Device>): boolean => device.lastScanId !== null || (device.connections?.includes('lan') ?? false);

/**
 * The device port WS-Management goes to through a tunnel: 16992, else 16993 (devices that forward
 * only TLS); for a proof of identity 16993 alone (where the device presents its certificate).
 */
function managementPort(connection: Pick<CiraConnection, 'forwardedPorts'>, purpose: DevicePathPurpose): number | null {
  if (purpose === 'proof') return connection.forwardedPorts.includes(TLS_PORT) ? TLS_PORT : null;
  if (connection.forwardedPorts.includes(HTTP_PORT)) return HTTP_PORT;
  if (connection.forwardedPorts.includes(TLS_PORT)) return TLS_PORT;
  return null;
}

/** The device port redirection goes to through a tunnel: 16994, else 16995 with TLS inside the channel. */
function redirectionPort(connection: Pick<CiraConnection, 'forwardedPorts'>): number | null {
  if (connection.forwardedPorts.includes(REDIRECTION_PORT)) return REDIRECTION_PORT;
  if (connection.forwardedPorts.includes(REDIRECTION_TLS_PORT)) return REDIRECTION_TLS_PORT;
  return null;
}

/**
 * Wires the `cira` service into devices, device access, presence and the hub. Call from the plugin's register.
 * `sessionWindowBytes`: the receive window of a remote console session's channel. A KVM screen is
 * megabytes; with WS-Management's small window every few kilobytes would wait a WINDOW_ADJUST round
 * trip (a WAN round trip for a real device), so the session would be bound by latency, not bandwidth.
 */
export function registerCiraIntegration(ctx: PluginContext<unknown>, cira: CiraService, limits: TunnelOperationLimits, sessionWindowBytes: number, directory?: Pick<TunnelDirectory, 'heldElsewhere'>): void {
  const devices = ctx.use('devices');
  const bound = createTunnelOperationBound(limits);
  let aheadOpen = 0;
  const ahead = {
    take(): boolean {
      if (bound.active + aheadOpen >= limits.concurrency) return false;
      aheadOpen++;
      return true;
    },
    give(): void {
      aheadOpen--;
    },
  };

  /**
   * The device's tunnel as a path of the device gate. Each connection the device's task makes is one
   * APF channel to the service's port. For an operation (not a redirection session, which opens its
   * channel itself, nor a proof) the first channel is opened right away, unless the bound is full
   * (running operations plus channels opened ahead) and the operation would wait anyway. A tunnel not
   * proven to be the device is offered as `unverified`: the gate sends nothing of the device's through
   * it, and uses it only for the proof that would verify it.
   */
  const reach = async (device: Readonly<Device>, service: DeviceService, purpose: DevicePathPurpose): Promise<DevicePathOffer | null> => {
    const connection = cira.connection(device.id);
    if (!connection) return null;
    const port = service === 'redirection' ? redirectionPort(connection) : managementPort(connection, purpose);
    if (port === null) return null;
    return {
      identity: connection.verified ? 'proven' : 'unverified',
      port,
      tls: port === TLS_PORT || port === REDIRECTION_TLS_PORT,
      channel: createTunnelChannel(cira, device.id, connection, port, purpose === 'operation' && connection.verified ? ahead : null, service === 'redirection' ? sessionWindowBytes : undefined),
      schedule: (operation) => bound.schedule(operation),
    };
  };
  const gate = ctx.use('deviceGate');
  gate.registerPath({ kind: 'cira', plugin: ctx.name, reach });
  const interrogator = createTunnelInterrogator({ devices, gate, pool: ctx.pool, logger: ctx.logger, timeoutMs: READ_TIMEOUT_MS });

  // What a tunnel tells presence: up or down, for verified tunnels only (an unverified one is no way to its device).
  const presence = ctx.use('devicePresence');

  cira.setDeviceResolver(async (identity) => {
    const known = devices.findByUuid(identity.uuid);
    // The UUID names a device the LAN knows, and this account's tunnels never proved to be it.
    if (!identity.trust && known && knownFromLan(known)) return { deviceId: known.id, identity: 'unverified' };
    // The device the tunnel names; it is reached through the tunnel once the tunnel is up.
    const { device, created } = await presence.adopt({ uuid: identity.uuid, ipAddress: identity.remoteAddress });
    if (created) ctx.logger.info('device first seen through a CIRA tunnel', { deviceId: device.id, uuid: identity.uuid });
    return { deviceId: device.id, identity: identity.trust ?? 'bound' };
  });

  /**
   * An unverified tunnel: proven by the certificate pinned on the LAN if it can be (the gate's proof,
   * in the device's turn, along this tunnel), else left to an operator.
   */
  const prove = async (connection: CiraConnection): Promise<void> => {
    const device = devices.get(connection.deviceId);
    if (!device) return;
    const result = await gate.proveIdentity(device, 'cira');
    const fields = { deviceId: device.id, uuid: connection.uuid, username: connection.username, remoteAddress: connection.remoteAddress };
    if (result === 'proven') {
      ctx.logger.info('CIRA tunnel proved to be the device pinned on the LAN (its TLS certificate)', fields);
      await cira.verify(device.id, 'proven');
    } else if (result === 'mismatch') {
      ctx.logger.warn('CIRA tunnel presented another TLS certificate than the one pinned for the device on the LAN; it stays unverified', fields);
    } else {
      ctx.logger.warn('CIRA tunnel claims the UUID of a device known from the LAN and cannot prove it; unverified until an operator accepts it', { ...fields, why: result });
    }
  };

  const onTunnel = async (event: CiraTunnelEvent): Promise<void> => {
    const { deviceId, uuid, remoteAddress } = event.connection;
    if (event.type === 'unverified') return prove(event.connection);
    if (event.type === 'up') {
      await presence.report({ uuid, ipAddress: remoteAddress }, 'cira', true);
      const device = devices.get(deviceId);
      if (device && (device.authStatus !== 'ok' || !device.firmwareVersion || !device.hostname)) interrogator.request(deviceId);
      return;
    }
    // A replacing tunnel of the same UUID follows at once: no flap of presence. At shutdown the store
    // is closing; the next start clears what the tunnels left (clearStale).
    if (event.reason === 'replaced' || event.reason === 'shutdown') return;
    // A newer tunnel of the device is already up, here or on another instance of a cluster (its connection stays).
    if (cira.connection(deviceId) || directory?.heldElsewhere(deviceId)) return;
    await presence.report({ uuid, ipAddress: remoteAddress }, 'cira', false);
  };
  // Each change writes to the store: shutdown waits for those under way before the store closes.
  const applying = new Set<Promise<void>>();
  const unsubscribe = cira.onTunnel((event) => {
    const applied = onTunnel(event).catch((err: Error) => ctx.logger.warn('could not apply a CIRA tunnel change to the device list', { deviceId: event.connection.deviceId, error: err.message }));
    applying.add(applied);
    void applied.finally(() => applying.delete(applied));
  });

  ctx.onReady(async () => {
    // Tunnels recorded by an earlier run that ended without saying so are gone. In a cluster the
    // others' tunnels are not: the tunnel directory clears those of instances that went down.
    if (!ctx.cluster.enabled) await clearStale(devices, presence, cira);
  });
  // Shutdown in dependency order: reads through tunnels stop before the cira server closes the
  // tunnels (stopping hooks run in reverse: this one before the server's); the changes under way
  // finish before the devices plugin and the store close.
  ctx.onStopping(() => interrogator.stop());
  ctx.onClose(async () => {
    unsubscribe();
    while (applying.size > 0) await Promise.allSettled([...applying]);
  });
}

async function clearStale(devices: DeviceRegistry, presence: DevicePresence, cira: CiraService): Promise<void> {
  for (const device of devices.list()) {
    if (!device.connections?.includes('cira') || cira.connection(device.id)) continue;
    await presence.report({ deviceId: device.id }, 'cira', false);
  }
}
