/**
 * Cluster-wide turns: a row of `gw_leases` per name while one operation holds it. Taken with one
 * statement (a row that is free, or held by an instance that is down, becomes ours), given back
 * with another, and waited for by asking again every 50-200 ms: turns are short and contention
 * (two instances at one device at once) is rare. Rows, not advisory locks: an advisory lock is held
 * by a connection, and a scan holds hundreds of turns at once. Within this instance, operations on
 * one name queue in memory first, so only one of them asks the database.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { HttpError } from '../http/http-error.js';

export interface Leases {
  exclusive<T>(name: string, work: () => Promise<T>, waitMs?: number): Promise<T>;
  /** Gives back every lease this instance holds (at stop). */
  close(): Promise<void>;
}

const DEFAULT_WAIT_MS = 30_000;

export function createLeases(pool: pg.Pool, instance: string, downAfterSeconds: number): Leases {
  const local = new Map<string, Promise<unknown>>();
  /** Leases whose release failed (the database was away): given back as soon as it answers again. */
  const unreleased = new Map<string, string>();
  let retry: NodeJS.Timeout | undefined;
  const release = async (name: string, holder: string): Promise<void> => {
    try {
      await pool.query('DELETE FROM gw_leases WHERE name = $1 AND holder = $2', [name, holder]);
      unreleased.delete(holder);
    } catch {
      unreleased.set(holder, name);
      retry ??= setTimeout(() => {
        retry = undefined;
        for (const [h, n] of unreleased) void release(n, h);
      }, 1000).unref();
    }
  };
  const take = `INSERT INTO gw_leases AS l (name, holder, instance) VALUES ($1, $2, $3)
    ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, instance = EXCLUDED.instance, taken_at = now()
    WHERE NOT EXISTS (SELECT 1 FROM gw_instances i WHERE i.id = l.instance AND i.stopped_at IS NULL AND i.last_seen_at > now() - make_interval(secs => $4))
    RETURNING holder`;
  const acquire = async (name: string, holder: string, waitMs: number) => {
    const deadline = Date.now() + waitMs;
    for (let pause = 50; ; pause = Math.min(200, pause * 2)) {
      const result = await pool.query(take, [name, holder, instance, downAfterSeconds]);
      if (result.rowCount === 1) return;
      if (Date.now() + pause > deadline) {
        throw new HttpError(503, 'GW_ERR_CLUSTER_BUSY', `another gateway instance holds '${name}' and did not give it back within ${Math.round(waitMs / 1000)} s; try again`, {
          expose: true,
          headers: { 'Retry-After': '5' },
        });
      }
      await new Promise((r) => setTimeout(r, pause));
    }
  };
  return {
    async exclusive(name, work, waitMs = DEFAULT_WAIT_MS) {
      // This instance's operations on `name` one after the other.
      const before = local.get(name) ?? Promise.resolve();
      let done!: () => void;
      const mine = new Promise<void>((r) => (done = r));
      const chained = before.then(() => mine);
      local.set(name, chained);
      await before;
      const holder = randomUUID();
      try {
        await acquire(name, holder, waitMs);
        try {
          return await work();
        } finally {
          await release(name, holder);
        }
      } finally {
        done();
        if (local.get(name) === chained) local.delete(name);
      }
    },
    async close() {
      if (retry) clearTimeout(retry);
      await pool.query('DELETE FROM gw_leases WHERE instance = $1', [instance]).catch(() => undefined);
    },
  };
}
