/**
 * Where a device's I/O goes once the gate has chosen its path: the target a task connects to (the
 * LAN address and port, or a tunnel's channel), and where the task runs (the worker pool, or this
 * thread for a channel, which cannot cross to a worker).
 */
import type { WorkerPool } from '../../../core/plugin-api.js';
import type { DeviceTarget } from '../../../workers/tasks/task-types.js';
import { REDIRECTION_PORTS, type Device, type DeviceRoute, type DeviceService, type DeviceSettings } from '../api.js';
import type { DeviceTasks } from './gate-types.js';

/**
 * Where an operation's tasks run: the worker pool, or, for a device reached through a channel (its
 * CIRA tunnel), this thread within the route's bound, since the channel cannot cross to a worker.
 */
export function tasksFor(pool: WorkerPool, route: DeviceRoute | null): DeviceTasks {
  // A device task waits on its device nearly all its time: bounded by the device turns, not by the pool's CPU slots.
  if (!route || !('channel' in route)) return { run: (task, input, runOptions) => pool.run(task, input, { ...runOptions, waitsOnIo: true }) };
  return { run: (task, input, runOptions) => route.schedule(() => pool.runInProcess(task, input, runOptions)) };
}

/** Speaks HTTP to a device that has its HTTP port open, as a scan's first read does; TLS otherwise. */
export function usesTls(openPorts: readonly number[], knownTls: boolean, ports: DeviceSettings['ports']): boolean {
  if (openPorts.includes(ports.http)) return false;
  if (openPorts.includes(ports.https)) return true;
  return knownTls;
}

export interface TargetParts {
  settings: DeviceSettings;
  service: DeviceService;
  timeouts: DeviceTarget['timeouts'];
}

/** The device's address on the local network, unless a route (its CIRA tunnel) names another way in. */
export function targetOf(
  parts: TargetParts,
  subject: { address: string; device?: Readonly<Device>; openPorts?: readonly number[] },
  route: DeviceRoute | null,
): DeviceTarget {
  const { settings, service } = parts;
  const { ports } = settings;
  const tls = route ? route.tls : usesTls(subject.openPorts ?? subject.device?.openPorts ?? [], subject.device?.tls ?? false, ports);
  const lanPort = service === 'redirection' ? (tls ? REDIRECTION_PORTS.tls : REDIRECTION_PORTS.plain) : tls ? ports.https : ports.http;
  return {
    // Through a channel the address only labels the device: no socket goes there.
    address: route && !('channel' in route) ? route.address : subject.address,
    port: route ? route.port : lanPort,
    tls,
    timeouts: parts.timeouts,
    tlsTrust: settings.tlsTrust,
    pinnedFingerprint: subject.device?.tlsFingerprint ?? null,
    ...(route && 'channel' in route ? { channel: route.channel } : {}),
  };
}
