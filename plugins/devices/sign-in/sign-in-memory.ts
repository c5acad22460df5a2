/**
 * The per-device sign-in memory every path that signs in to a device goes through (scans, device
 * operations such as power and monitor reads, diagnostics): which credentials a device refused (by
 * credential id and version, so a changed password is tried again), the failed logins in a row the
 * device has counted, and a budget that keeps that count below the device's lockout across
 * operations and over time.
 *
 * What we assume of AMT's anti-hammering (AMT-NOTES): the device counts failed logins in a row and
 * locks after `lockoutThreshold` (10); a success resets the count, and so does the lockout itself;
 * the count does not decay with time. So the budget spent is only given back by a success, a lockout
 * page (after `lockoutPauseSeconds`) or an operator's reset.
 */
import type { KeyValueStore, Logger } from '../../../core/plugin-api.js';
import { createSerialQueue } from '../../../core/util/serial-queue.js';

import type { RefusedCredential, SignInMemory, SignInObserver, SignInPause, SignInRecord, SignInReport, SignInSettings } from './sign-in-types.js';
export type { SignInSettings, RefusedCredential, SignInRecord, SignInPause, SignInReport, SignInPlan, SignInView, SignInMemory, SignInObserver, PlanOptions } from './sign-in-types.js';

/** How long an operation waits for others on the same device to give back the budget they hold. */
export const BUSY_WAIT_MS = 30_000;

/** Most refused credentials remembered per device; the oldest go first. */
const MAX_REFUSED = 64;

const emptyRecord = (address: string): SignInRecord => ({
  address,
  consecutiveFailures: 0,
  lastFailureAt: null,
  lastSuccessAt: null,
  workingCredential: null,
  refused: [],
  lockedOutAt: null,
});

export async function openSignInMemory(
  store: KeyValueStore,
  settings: SignInSettings,
  versionOf: (credentialId: string) => string | undefined,
  logger: Logger,
  observer?: SignInObserver,
): Promise<SignInMemory> {
  const records = new Map<string, SignInRecord>();
  for await (const [address, record] of store.entries<SignInRecord>()) records.set(address, record);
  // What another instance of a cluster learned about a device's sign-in (its turn is cluster-wide: cluster-turns.ts).
  store.onRemoteChange<SignInRecord>((address, record) => (record ? records.set(address, record) : records.delete(address)));
  const reserved = new Map<string, number>();
  /** Operations waiting for reservations on an address to be given back. */
  const waiting = new Map<string, Set<() => void>>();
  const serial = createSerialQueue();
  // Read at each use: the settings may be adjusted before start (rest-api's deprecated options).
  const budgetNow = (): number => Math.max(1, settings.lockoutThreshold - settings.safetyMargin);

  /**
   * Records to write, by address, and the write that takes them. A scan signs in to hundreds of
   * devices a second, each a new record: written one batch per turn of the queue rather than one
   * LevelDB put each (a put costs about 60 µs of CPU, a record in a batch about 11).
   */
  let unwritten = new Map<string, SignInRecord>();
  let flush: Promise<void> | null = null;
  const persist = (record: SignInRecord): Promise<void> => {
    unwritten.set(record.address, record);
    if (flush) return flush;
    const next = serial(async () => {
      const records = [...unwritten.values()];
      unwritten = new Map();
      flush = null;
      await store.batch(records.map((r) => ({ type: 'put' as const, key: r.address, value: r })));
    }).catch((err: Error) => logger.warn('could not store sign-in memory', { records: 'batch', error: err.message }));
    flush = next;
    return next;
  };

  const refusedNow = (record: SignInRecord | undefined, credentialId: string): boolean => {
    const version = versionOf(credentialId);
    return !!record && version !== undefined && record.refused.some((r) => r.credentialId === credentialId && r.version === version);
  };

  const pauseOf = (record: SignInRecord | undefined, remaining: number): SignInPause | null => {
    if (record?.lockedOutAt) {
      const until = Date.parse(record.lockedOutAt) + settings.lockoutPauseSeconds * 1000;
      if (Date.now() < until) {
        return { reason: 'locked-out', detail: 'the device said its account is locked after repeated failed logins', until: new Date(until).toISOString() };
      }
    }
    if (remaining > 0) return null;
    const spent = record?.consecutiveFailures ?? 0;
    if (spent < budgetNow()) {
      return { reason: 'budget-spent', detail: 'other sign-ins to this device under way hold the rest of its failed-login budget; try again when they end' };
    }
    return {
      reason: 'budget-spent',
      detail: `${spent} failed logins in a row on this device (lockout at ${settings.lockoutThreshold}); no further credential is tried until one signs in, a credential changes or an operator resets the sign-in memory`,
    };
  };

  const remainingOf = (address: string): number => budgetNow() - (records.get(address)?.consecutiveFailures ?? 0) - (reserved.get(address) ?? 0);

  function settleOne(address: string, reservation: number, report: SignInReport): Promise<void> {
    const left = (reserved.get(address) ?? 0) - reservation;
    if (left > 0) reserved.set(address, left);
    else reserved.delete(address);
    for (const wake of [...(waiting.get(address) ?? [])]) wake();
    observer?.settled(report);
    if (report.failedLogins === 0 && report.refused.length === 0 && !report.succeeded && !report.lockedOut) return Promise.resolve();
    const existing = records.get(address);
    // The common case, a known credential signing in again, changes nothing worth a write.
    const routine = !!existing && report.failedLogins === 0 && report.refused.length === 0 && !report.lockedOut && existing.consecutiveFailures === 0 && !existing.lockedOutAt;
    if (routine && report.succeeded && existing.workingCredential?.credentialId === report.succeeded && existing.workingCredential.version === versionOf(report.succeeded)) {
      existing.lastSuccessAt = new Date().toISOString();
      return Promise.resolve();
    }
    const record = existing ?? emptyRecord(address);
    const now = new Date().toISOString();
    if (report.failedLogins > 0) {
      record.consecutiveFailures += report.failedLogins;
      record.lastFailureAt = now;
    }
    for (const credentialId of report.refused) {
      const version = versionOf(credentialId);
      if (version === undefined) continue;
      record.refused = record.refused.filter((r) => r.credentialId !== credentialId);
      record.refused.push({ credentialId, version, at: now });
      if (record.workingCredential?.credentialId === credentialId) record.workingCredential = null;
    }
    if (record.refused.length > MAX_REFUSED) record.refused = record.refused.slice(-MAX_REFUSED);
    if (report.succeeded) {
      // The failures of an operation come before its success: the device's count is back at zero.
      record.consecutiveFailures = 0;
      record.lastSuccessAt = now;
      record.lockedOutAt = null;
      const version = versionOf(report.succeeded);
      if (version !== undefined) record.workingCredential = { credentialId: report.succeeded, version };
      record.refused = record.refused.filter((r) => r.credentialId !== report.succeeded);
    }
    if (report.lockedOut) {
      // The device reset its own count when it locked; it is left alone for the pause.
      record.lockedOutAt = now;
      record.consecutiveFailures = 0;
      logger.warn('device says its account is locked; sign-ins paused', { address, pauseSeconds: settings.lockoutPauseSeconds });
    }
    records.set(address, record);
    return persist(record);
  }

  /** Resolves when an operation on `address` settles, or after `ms`. */
  const released = (address: string, ms: number): Promise<void> =>
    new Promise((resolve) => {
      const waiters = waiting.get(address) ?? new Set<() => void>();
      const wake = (): void => {
        clearTimeout(timer);
        waiters.delete(wake);
        if (waiters.size === 0) waiting.delete(address);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, ms));
      waiters.add(wake);
      waiting.set(address, waiters);
    });

  const memory: SignInMemory = {
    async planWhenFree(address, candidates, { waitMs = BUSY_WAIT_MS, ...options }) {
      const deadline = Date.now() + waitMs;
      let plan = memory.plan(address, candidates, options);
      while (plan.busy && Date.now() < deadline) {
        await released(address, deadline - Date.now());
        plan = memory.plan(address, candidates, options);
      }
      return plan;
    },
    plan(address, candidates, { preferred, maxAttempts }) {
      const record = records.get(address);
      const remaining = remainingOf(address);
      const pause = pauseOf(record, remaining);
      const skippedRefused = candidates.filter((id) => refusedNow(record, id));
      const usable = candidates.filter((id) => !refusedNow(record, id));
      const first = preferred && usable.includes(preferred) ? [preferred] : [];
      const ordered = [...first, ...usable.filter((id) => id !== preferred)];
      const maxFailures = pause ? 0 : Math.max(0, Math.min(Math.floor(maxAttempts), remaining));
      const credentialIds = pause ? [] : ordered.slice(0, maxFailures);
      if (credentialIds.length > 0) reserved.set(address, (reserved.get(address) ?? 0) + maxFailures);
      const reservation = credentialIds.length > 0 ? maxFailures : 0;
      let settled = false;
      const busy = pause !== null && pause.reason === 'budget-spent' && (record?.consecutiveFailures ?? 0) < budgetNow();
      if (pause && !busy) observer?.paused(pause.reason);
      return {
        credentialIds,
        maxFailures: credentialIds.length > 0 ? maxFailures : 0,
        pause,
        busy,
        skippedRefused,
        settle(report) {
          if (settled) return Promise.resolve();
          settled = true;
          return settleOne(address, reservation, report);
        },
      };
    },
    view(address) {
      const record = records.get(address) ?? emptyRecord(address);
      const remaining = remainingOf(address);
      return { ...record, refused: record.refused.filter((r) => versionOf(r.credentialId) === r.version), budget: budgetNow(), remaining: Math.max(0, remaining), pause: pauseOf(records.get(address), remaining) };
    },
    paused(address) {
      const record = records.get(address);
      if (!record) return false;
      return pauseOf(record, budgetNow() - record.consecutiveFailures) !== null;
    },
    async reset(address) {
      records.delete(address);
      unwritten.delete(address);
      await serial(() => store.del(address));
    },
    adopt(from, to) {
      const old = records.get(from);
      if (!old || from === to) return;
      const record = mergeRecords(to, old, records.get(to));
      records.delete(from);
      unwritten.delete(from);
      records.set(to, record);
      void serial(() => store.del(from)).catch(() => undefined);
      void persist(record);
    },
  };
  return memory;
}

const later = (a: string | null, b: string | null): string | null => (a === null ? b : b === null ? a : a > b ? a : b);

/** One record from two kept for the same device: the larger count is not enough, both paths' failures counted. */
function mergeRecords(address: string, a: SignInRecord, b: SignInRecord | undefined): SignInRecord {
  if (!b) return { ...a, address };
  const refused = new Map<string, RefusedCredential>();
  for (const r of [...a.refused, ...b.refused].sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : 0))) refused.set(r.credentialId, r);
  return {
    address,
    consecutiveFailures: a.consecutiveFailures + b.consecutiveFailures,
    lastFailureAt: later(a.lastFailureAt, b.lastFailureAt),
    lastSuccessAt: later(a.lastSuccessAt, b.lastSuccessAt),
    workingCredential: b.workingCredential ?? a.workingCredential,
    refused: [...refused.values()].slice(-MAX_REFUSED),
    lockedOutAt: later(a.lockedOutAt, b.lockedOutAt),
  };
}
