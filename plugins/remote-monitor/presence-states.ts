/**
 * The online state of every tracked device: the state machine of probe outcomes (online after one
 * answer, offline after `missedProbesOffline` silent probes in a row) and its persistence, so that
 * `since` survives restarts. Only changes are written at once; at close, the records whose `lastSeen`
 * moved since they were written (a device never observed keeps what the registry says, unwritten).
 */
import type { BatchOperation, KeyValueStore, Logger } from '../../core/plugin-api.js';
import type { Device } from 'amt-gateway/devices';
import { createSerialQueue } from '../../core/util/serial-queue.js';
import { onLan } from './lan-path.js';

/** What is stored per device. */
export interface PresenceRecord {
  online: boolean;
  /** When the device entered its current state; null when never observed. */
  since: string | null;
  /** When the device last answered. */
  lastSeen: string | null;
}

export interface PresenceState extends PresenceRecord {
  /** Silent probes in a row. */
  missed: number;
  /** The device answered the last probe (or was just found by a scan): "connected" for the SOAP service. */
  answering: boolean;
  /** The management port the last answer named, when known. */
  port: number | null;
}

/** A flip of the online state. */
export interface StatusChange {
  deviceId: string;
  online: boolean;
  at: string;
  lastSeen: string | null;
}

export interface PresenceStates {
  get(deviceId: string): Readonly<PresenceState> | undefined;
  has(deviceId: string): boolean;
  readonly size: number;
  entries(): IterableIterator<[string, Readonly<PresenceState>]>;
  /**
   * Starts tracking a device (no-op when tracked): with its stored record when there is one, else
   * `initial` (default: whether the registry has it on the LAN, since its last sighting; a tunnel is
   * no LAN answer).
   */
  track(device: Device, initial?: PresenceRecord): Readonly<PresenceState>;
  /** Applies a probe outcome (or a scan's sighting); returns the change when the online state flips. */
  observe(deviceId: string, answered: boolean, at: Date, port?: number | null): StatusChange | null;
  /** Stops tracking a device and deletes its record. */
  forget(deviceId: string): void;
  /** Deletes the stored records of devices that were not tracked (removed while the monitor was off). */
  pruneUntracked(): void;
  /** Writes the records whose `lastSeen` moved since they were written, and waits for pending writes. */
  flush(): Promise<void>;
}

export async function openPresenceStates(store: KeyValueStore, missedProbesOffline: number, logger: Logger): Promise<PresenceStates> {
  const stored = new Map<string, PresenceRecord>();
  for await (const [id, record] of store.entries<PresenceRecord>()) stored.set(id, record);
  const states = new Map<string, PresenceState>();
  /** Devices whose state differs from their stored record (or what the registry says when there is none). */
  const unsaved = new Set<string>();
  const serial = createSerialQueue();
  const write = (work: () => Promise<void>) =>
    void serial(work).catch((err: Error) => logger.warn('could not store an online state', { error: err.message }));
  const recordOf = ({ online, since, lastSeen }: PresenceState): PresenceRecord => ({ online, since, lastSeen });
  // Another instance of a cluster probes this device (cluster-share.ts): its flips are this instance's view.
  store.onRemoteChange<PresenceRecord>((id, record) => {
    const state = states.get(id);
    if (!record) return void stored.delete(id);
    if (!state) return void stored.set(id, record);
    state.online = record.online;
    state.answering = record.online;
    state.since = record.since;
    state.lastSeen = record.lastSeen;
  });

  return {
    get: (id) => states.get(id),
    has: (id) => states.has(id),
    get size() {
      return states.size;
    },
    entries: () => states.entries(),
    track(device, initial) {
      const existing = states.get(device.id);
      if (existing) return existing;
      const record = stored.get(device.id);
      if (record) stored.delete(device.id);
      else if (initial) unsaved.add(device.id);
      const { online, since, lastSeen } = record ?? initial ?? { online: onLan(device), since: device.lastSeen, lastSeen: device.lastSeen };
      // A literal, not a spread of the record: spreading costs microseconds a device, a second at 100,000.
      const state: PresenceState = { online, since, lastSeen, missed: 0, answering: online, port: null };
      states.set(device.id, state);
      return state;
    },
    observe(id, answered, at, port = null) {
      const state = states.get(id);
      if (!state) return null;
      const iso = at.toISOString();
      state.answering = answered;
      if (answered) {
        state.missed = 0;
        state.lastSeen = iso;
        if (port !== null) state.port = port;
      } else {
        state.missed++;
      }
      const online = answered || (state.online && state.missed < missedProbesOffline);
      if (online === state.online) {
        if (answered) unsaved.add(id);
        return null;
      }
      state.online = online;
      state.since = iso;
      unsaved.delete(id);
      const record = recordOf(state);
      // Left unsaved when the write fails, so that closing tries again.
      write(async () => {
        try {
          await store.put(id, record);
        } catch (err) {
          unsaved.add(id);
          throw err;
        }
      });
      return { deviceId: id, online, at: iso, lastSeen: state.lastSeen };
    },
    forget(id) {
      if (!states.delete(id)) return;
      unsaved.delete(id);
      write(() => store.del(id));
    },
    pruneUntracked() {
      const orphans = [...stored.keys()];
      stored.clear();
      if (orphans.length) write(() => store.batch(orphans.map((key) => ({ type: 'del' as const, key }))));
    },
    async flush() {
      // In the queue, so that a change whose write failed just before is among the records.
      await serial(async () => {
        const records: BatchOperation[] = [];
        for (const id of unsaved) {
          const state = states.get(id);
          if (state) records.push({ type: 'put', key: id, value: recordOf(state) });
        }
        unsaved.clear();
        if (records.length) await store.batch(records);
      });
    },
  };
}
