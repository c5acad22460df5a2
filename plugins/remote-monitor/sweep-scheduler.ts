/**
 * The online monitor's schedule. Every tracked device is probed once per interval at its own phase,
 * so the probes of an interval are spread over it instead of sent in bursts: each tick dispatches the
 * devices that are due, in `presence-sweep` tasks of at most `batchSize`, while at most `concurrency`
 * devices are being probed at once. A device whose last probe has not finished is not probed again.
 */
import type { CancelToken, Logger } from '../../core/plugin-api.js';
import type { Device, DeviceRegistry, DeviceSettings, ProbeTasks } from 'amt-gateway/devices';
import type { PresenceSweepTarget } from '../../workers/tasks/presence-sweep-types.js';
import type { RemoteMonitorConfig } from './config.js';
import type { PresenceStates, StatusChange } from './presence-states.js';

/** A presence sweep of a batch, as the device gate runs it (`deviceGate.probe('presence-sweep', ...)`: each device within its turn). */
export type PresenceSweep = (input: ProbeTasks['presence-sweep']['input'], options: { cancel: CancelToken }) => Promise<ProbeTasks['presence-sweep']['output']>;

export interface SweepSchedulerDeps {
  sweep: PresenceSweep;
  createCancelToken(): CancelToken;
  devices: DeviceRegistry;
  states: PresenceStates;
  ports: DeviceSettings['ports'];
  config: RemoteMonitorConfig;
  logger: Logger;
  /** The allowed networks (the device gate's rule): a device outside is never probed. */
  allows(address: string): boolean;
  /** Called after every probe outcome of a device, with the flip of its online state if there was one. */
  onObserved(deviceId: string, change: StatusChange | null): void;
  /** In a cluster: whether this instance probes the device (each instance probes its share); default all. */
  probesHere?(deviceId: string): boolean;
}

/** How the schedule is doing, for operators (`GET /api/monitor/schedule`). */
export type { MonitorSchedule as ScheduleStats } from './monitor-schemas.js';
import type { MonitorSchedule as ScheduleStats } from './monitor-schemas.js';

export interface SweepScheduler {
  /** Starts ticking; the first tick (or an earlier `ensureTracking`) tracks every registered device. */
  start(): void;
  /**
   * Tracks every registered device, phases spread over one interval from now, and drops the stored
   * states of devices no longer registered; once, no-op afterwards. Whatever reads the states calls it first.
   */
  ensureTracking(): void;
  /** Stops ticking, cancels the sweeps in flight and waits for them. */
  stop(): Promise<void>;
  /** Tracks a device first probed at `firstProbeAt` (ms since the epoch); no-op when tracked. */
  add(device: Device, firstProbeAt: number): void;
  forget(deviceId: string): void;
  stats(): ScheduleStats;
}

interface Window {
  start: number;
  probes: number;
  maxLagMs: number;
  slowestBatchMs: number;
}

export function createSweepScheduler(deps: SweepSchedulerDeps): SweepScheduler {
  const { config, ports, devices, states } = deps;
  const intervalMs = Math.round(config.intervalSeconds * 1000);
  // About 20 ticks per interval, at most one a second: small batches, no bursts, little overhead.
  const tickMs = Math.min(1000, Math.max(50, Math.floor(intervalMs / 20)));
  const nextAt = new Map<string, number>();
  const probing = new Set<string>();
  const outside = new Set<string>();
  const running = new Set<Promise<void>>();
  const cancel = deps.createCancelToken();
  const sweepOptions: Omit<ProbeTasks['presence-sweep']['input'], 'targets'> = {
    rmcp: { windowMs: config.probe.rmcpWindowMs, batchSize: config.probe.rmcpBatchSize },
    connectTimeoutMs: config.probe.connectTimeoutMs,
  };
  let timer: NodeJS.Timeout | undefined;
  let waiting = 0;
  let warnedAt = -Infinity;
  let window: Window = { start: Date.now(), probes: 0, maxLagMs: 0, slowestBatchMs: 0 };
  let lastInterval: ScheduleStats['lastInterval'] = null;

  const managementPorts = (device: Device): number[] => {
    const open = [ports.http, ports.https].filter((p) => p > 0 && device.openPorts.includes(p));
    return open.length ? open : [device.tls ? ports.https : ports.http];
  };

  function add(device: Device, firstProbeAt: number): void {
    states.track(device);
    if (!nextAt.has(device.id)) nextAt.set(device.id, firstProbeAt);
  }

  function forget(deviceId: string): void {
    nextAt.delete(deviceId);
    outside.delete(deviceId);
    states.forget(deviceId);
  }

  /** Picks up devices registered without an event (and drops removed ones) when the counts disagree. */
  function syncWithRegistry(now: number): void {
    if (devices.count() === nextAt.size) return;
    const list = devices.list();
    for (let i = 0; i < list.length; i++) add(list[i]!, now + Math.floor((i / list.length) * intervalMs));
    // Every listed device is tracked now, so only a surplus means some were removed.
    if (nextAt.size > list.length) for (const id of nextAt.keys()) if (!devices.get(id)) forget(id);
  }

  let tracking = false;
  function ensureTracking(): void {
    if (tracking) return;
    tracking = true;
    syncWithRegistry(Date.now());
    states.pruneUntracked();
  }

  function rollWindow(now: number): void {
    if (now - window.start < intervalMs) return;
    lastInterval = { probes: window.probes, maxLagMs: window.maxLagMs, slowestBatchMs: window.slowestBatchMs };
    window = { start: now, probes: 0, maxLagMs: 0, slowestBatchMs: 0 };
  }

  function sweep(batch: Array<[string, number]>, now: number): void {
    const idByAddress = new Map<string, string>();
    const targets: PresenceSweepTarget[] = [];
    for (const [id, dueAt] of batch) {
      const device = devices.get(id);
      if (!device) {
        forget(id);
        continue;
      }
      nextAt.set(id, Math.max(dueAt + intervalMs, now));
      window.maxLagMs = Math.max(window.maxLagMs, now - dueAt);
      if (!deps.allows(device.ipAddress)) {
        if (!outside.has(id)) deps.logger.warn('device outside the allowed networks is not probed', { deviceId: id, ipAddress: device.ipAddress });
        outside.add(id);
        continue;
      }
      outside.delete(id);
      if (deps.probesHere && !deps.probesHere(id)) continue;
      if (idByAddress.has(device.ipAddress)) continue;
      idByAddress.set(device.ipAddress, id);
      probing.add(id);
      targets.push({ address: device.ipAddress, tcpPorts: managementPorts(device) });
    }
    if (targets.length === 0) return;
    window.probes += targets.length;
    const started = performance.now();
    const job: Promise<void> = deps
      .sweep({ ...sweepOptions, targets, tcpConcurrency: targets.length }, { cancel })
      .then((output) => {
        if (output.cancelled) return;
        const at = new Date();
        for (const result of output.results) {
          const id = idByAddress.get(result.address);
          // Busy: the gateway was talking to the device all the while; this probe learnt nothing of it.
          if (id === undefined || !nextAt.has(id) || result.busy) continue;
          deps.onObserved(id, states.observe(id, result.alive, at, result.port));
        }
      })
      .catch((err: Error) => deps.logger.warn('presence sweep failed', { devices: targets.length, error: err.message }))
      .finally(() => {
        for (const id of idByAddress.values()) probing.delete(id);
        window.slowestBatchMs = Math.max(window.slowestBatchMs, Math.round(performance.now() - started));
        running.delete(job);
      });
    running.add(job);
  }

  function tick(): void {
    ensureTracking();
    const now = Date.now();
    syncWithRegistry(now);
    rollWindow(now);
    const due: Array<[string, number]> = [];
    for (const [id, at] of nextAt) if (at <= now && !probing.has(id)) due.push([id, at]);
    due.sort((a, b) => a[1] - b[1]);
    const room = Math.max(0, config.concurrency - probing.size);
    const dispatch = due.length > room ? due.slice(0, room) : due;
    if (due.length > room && now - warnedAt >= intervalMs) {
      warnedAt = now;
      deps.logger.warn('online monitor is behind its schedule: more devices are due than may be probed at once', { waiting: due.length - room, probing: probing.size, concurrency: config.concurrency });
    }
    waiting = due.length - dispatch.length;
    for (let i = 0; i < dispatch.length; i += config.batchSize) sweep(dispatch.slice(i, i + config.batchSize), now);
  }

  return {
    start() {
      // Nothing before the first tick: tracking 100,000 devices and the first probes (which start the
      // worker threads) would delay serving by a tenth of a second; what reads the states first calls
      // ensureTracking, so every answer is the same as if it had run here.
      timer = setInterval(tick, tickMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      cancel.cancel();
      await Promise.allSettled([...running]);
    },
    ensureTracking,
    add,
    forget,
    stats() {
      ensureTracking();
      const lag = lastInterval?.maxLagMs ?? window.maxLagMs;
      return {
        intervalSeconds: config.intervalSeconds,
        tickMs,
        tracked: nextAt.size,
        probing: probing.size,
        waiting,
        lastInterval,
        keepingUp: waiting === 0 && lag <= 2 * tickMs,
        outsideAllowedNetworks: outside.size,
      };
    },
  };
}
