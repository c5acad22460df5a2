/**
 * How many operations may wait on devices at once, and whose turn it is at each device. A device
 * never has two of the gateway's connections at once, whichever paths (a scan, power, monitor
 * reads, diagnostics) want it: AMT firmware handles few connections and fragile ones worse. How
 * many run in all follows what they cost (device-admission.ts): up to the sockets the gateway may
 * hold (`deviceConnections`) while they wait on devices, fewer while they need the CPU.
 *
 * The device gate (device-gate.ts) calls `run` around every operation, for every path, and holds the
 * turn for all of it. Three layers, taken in this order and given back in reverse: the turn among this
 * thread's operations (a queue per device, first come first served), the device's slot in the turn
 * table every thread shares (so the probes of scans and of the online monitor, in worker threads,
 * wait too), and the turn of a registered provider beyond this gateway (a cluster's), if any.
 */
import type { ThreadLoad } from '../../../core/plugin-api.js';
import type { TurnTable } from '../../../workers/amt/turn-table.js';
import type { DeviceTurnProvider } from '../api.js';
import { ADMISSION_TICK_MS, createAdmission, type AdmissionBounds } from './device-admission.js';

/** The turns beyond this thread's queues: the table shared with the worker threads, a provider beyond this gateway. */
export interface SharedTurns {
  table: TurnTable;
  /** The registered provider now, if any (read at each turn: one may register after the gate is made). */
  provider(): DeviceTurnProvider | undefined;
}

export interface DeviceTurns {
  /** Runs `work` once no other operation or probe is at `deviceKey` (the device's address, or `device:<id>`) and it is admitted. */
  run<T>(deviceKey: string, work: () => Promise<T>): Promise<T>;
  /** Operations admitted at once now (between the bounds' minimum and `deviceConnections`). */
  readonly limit: number;
  /** The bounds of the limit; `maximum` is `deviceConnections`. */
  readonly bounds: Readonly<AdmissionBounds>;
  /** Sets the bounds (at start, before any operation). */
  rebound(bounds: AdmissionBounds): void;
  /** Operations running now. */
  readonly active: number;
  /** Operations waiting for their device's turn or for admission. */
  readonly waiting: number;
  /** The most operations that ran at once so far. */
  readonly peakActive: number;
  /** Stops the admission's timer (at teardown). */
  close(): void;
}

/**
 * @param bounds the admission's bounds (`maximum`: `deviceConnections`)
 * @param threadLoad what the threads showed since the previous call (the worker pool's `threadLoad`)
 * @param shared the turns shared with the worker threads and beyond this gateway (none: this thread's only)
 */
export function createDeviceTurns(bounds: AdmissionBounds, threadLoad: () => ThreadLoad, shared?: SharedTurns): DeviceTurns {
  const admission = createAdmission(bounds);
  /** Devices with an operation running; each holds the queue of those waiting for that device. */
  const busy = new Map<string, Array<() => void>>();
  const admitting: Array<() => void> = [];
  let admitHead = 0;
  let active = 0;
  let peakActive = 0;
  let waitingForDevice = 0;
  let ticker: NodeJS.Timeout | undefined;
  let lastTick = 0;

  const takeDevice = (key: string): Promise<void> | undefined => {
    const queue = busy.get(key);
    if (!queue) {
      busy.set(key, []);
      return undefined;
    }
    waitingForDevice++;
    return new Promise<void>((resolve) => queue.push(resolve)).finally(() => void waitingForDevice--);
  };
  const releaseDevice = (key: string): void => {
    const queue = busy.get(key)!;
    const next = queue.shift();
    if (next) next();
    else busy.delete(key);
  };
  const queued = () => admitting.length - admitHead;
  const admitNext = (): void => {
    const next = admitting[admitHead++]!;
    if (admitHead > 1024 && admitHead * 2 > admitting.length) {
      admitting.splice(0, admitHead);
      admitHead = 0;
    }
    next();
  };
  const admitWhileRoom = (): void => {
    while (queued() > 0 && active < admission.limit) {
      active++;
      admitNext();
    }
    peakActive = Math.max(peakActive, active);
  };
  const tick = (): void => {
    if (active === 0 && queued() === 0) {
      clearInterval(ticker);
      ticker = undefined;
      admission.rest();
      return;
    }
    // The tick's own lateness is this thread's delay too, measured even when it ran before the
    // threads' monitors could record the same stall.
    const now = performance.now();
    const late = now - lastTick - ADMISSION_TICK_MS;
    lastTick = now;
    const load = threadLoad();
    admission.step({ delayMs: Math.max(load.delayMs, late), busy: load.busy });
    if (queued() > 0) admission.pressed();
    admitWhileRoom();
  };
  const takeSlot = (): Promise<void> | undefined => {
    if (!ticker) {
      threadLoad(); // what the threads showed while no operation ran is not about operations
      lastTick = performance.now();
      ticker = setInterval(tick, ADMISSION_TICK_MS);
      ticker.unref();
    }
    if (active < admission.limit && queued() === 0) {
      active++;
      peakActive = Math.max(peakActive, active);
      return undefined;
    }
    admission.pressed();
    return new Promise<void>((resolve) => admitting.push(resolve));
  };
  const releaseSlot = (): void => {
    // A finishing operation hands its slot straight to the next waiter while the limit allows, so
    // `active` never overshoots; after the limit shrank, it gives the slot back instead.
    if (queued() > 0 && active <= admission.limit) admitNext();
    else active--;
  };

  return {
    get limit() {
      return admission.limit;
    },
    get bounds() {
      return admission.bounds;
    },
    rebound(next) {
      admission.rebound(next);
    },
    async run(deviceKey, work) {
      // The device's turn first: an operation queued behind its device holds no slot meanwhile.
      await takeDevice(deviceKey);
      let tableSlot = -1;
      let giveBeyond: (() => void | Promise<void>) | undefined;
      try {
        if (shared) tableSlot = await shared.table.take(deviceKey);
        giveBeyond = await shared?.provider()?.take(deviceKey);
        await takeSlot();
        try {
          return await work();
        } finally {
          releaseSlot();
        }
      } finally {
        try {
          await giveBeyond?.();
        } finally {
          if (tableSlot >= 0) shared!.table.give(tableSlot);
          releaseDevice(deviceKey);
        }
      }
    },
    get active() {
      return active;
    },
    get waiting() {
      return waitingForDevice + queued();
    },
    get peakActive() {
      return peakActive;
    },
    close() {
      clearInterval(ticker);
      ticker = undefined;
    },
  };
}
