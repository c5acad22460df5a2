/**
 * The sign-in throttle of a cluster: every instance's attempts counted together, so that guesses
 * spread over the instances get no more than guesses at one. Each attempt is a row of
 * `gw_sign_in_attempts` from its start (under way, it counts as a failure, as in memory); its end
 * marks it failed, or removes it. An attempt begins under a transaction-scoped advisory lock on its
 * address, so two instances never both admit the attempt that crosses a limit. The rule itself is
 * the in-memory throttle's (`throttleDecision`), fed with the rows; times are the database's clock.
 * An attempt of an instance that went down, or one under way for longer than any attempt takes,
 * counts as a failure from its start. Rows carry a hash of the name tried, never the name.
 */
import { createHash, randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from '../log/logger.js';
import { throttleDecision, throttlePair, type SharedLoginThrottle, type ThrottleLimits } from '../auth/login-throttle.js';
import { isUnreachable, unavailableError } from '../store/postgres/pg-errors.js';

/** The first key of the advisory locks taken per address ("amts" in ASCII). */
const LOCK_CLASS = 0x616d7473;
/** No attempt takes longer (the throttle's delay, scrypt, a peer's check): one under way longer is a failure. */
const MAX_ATTEMPT_SECONDS = 60;
const PRUNE_EVERY_MS = 60_000;

interface Row {
  pair: string;
  at: number;
  failed: boolean;
  cleared: boolean;
}

export interface ClusterThrottleOptions {
  scope: string;
  limits: ThrottleLimits;
  instance: string;
  downAfterSeconds: number;
  logger: Logger;
}

export function createClusterThrottle(pool: pg.Pool, options: ClusterThrottleOptions): SharedLoginThrottle & { close(): void } {
  const { scope, limits, instance } = options;
  const windowSeconds = limits.windowMs / 1000;
  const hashed = (client: string, username: string) => createHash('sha256').update(`${scope}\u0000${throttlePair(client, username)}`).digest('base64url');
  const read = `SELECT (extract(epoch FROM now()) * 1000)::float8 AS now,
      coalesce(json_agg(json_build_object('pair', a.pair, 'at', extract(epoch FROM coalesce(a.failed_at, a.started_at)) * 1000, 'failed', a.failed, 'cleared', a.name_cleared) ORDER BY coalesce(a.failed_at, a.started_at)), '[]') AS rows
    FROM (SELECT s.*, s.failed_at IS NOT NULL OR s.started_at <= now() - make_interval(secs => $4) OR NOT EXISTS (
            SELECT 1 FROM gw_instances i WHERE i.id = s.instance AND i.stopped_at IS NULL AND i.last_seen_at > now() - make_interval(secs => $3)) AS failed
          FROM gw_sign_in_attempts s WHERE s.scope = $1 AND s.address = $2) a
    WHERE NOT a.failed OR coalesce(a.failed_at, a.started_at) > now() - make_interval(secs => $5)`;
  const run = async <T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect().catch((err: unknown) => {
      throw unavailableError(err);
    });
    try {
      return await work(client);
    } catch (err) {
      throw isUnreachable(err) ? unavailableError(err) : err;
    } finally {
      client.release();
    }
  };
  const settle = (what: string, sql: string, params: unknown[]) =>
    pool.query(sql, params).then(
      () => undefined,
      // Left under way, the attempt counts as a failure once MAX_ATTEMPT_SECONDS pass: never less than it should.
      (err: Error) => options.logger.warn(`sign-in throttle: ${what} was not written`, { error: err.message }),
    );
  const prune = setInterval(() => void pool.query('DELETE FROM gw_sign_in_attempts WHERE expires_at < now()').catch(() => undefined), PRUNE_EVERY_MS);
  prune.unref();
  return {
    begin: (client, username) =>
      run(async (db) => {
        const pair = hashed(client, username);
        await db.query('BEGIN');
        try {
          await db.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS, `${scope} ${client}`]);
          const found = (await db.query<{ now: number; rows: Row[] }>(read, [scope, client, options.downAfterSeconds, MAX_ATTEMPT_SECONDS, windowSeconds])).rows[0]!;
          const failures = found.rows.filter((r) => r.failed);
          const underWay = found.rows.filter((r) => !r.failed);
          const verdict = throttleDecision(limits, {
            now: found.now,
            nameFailures: failures.filter((r) => r.pair === pair && !r.cleared).map((r) => r.at),
            addressFailures: failures.map((r) => r.at),
            pendingForName: underWay.filter((r) => r.pair === pair).length,
            pendingForAddress: underWay.length,
          });
          if ('retryAfterSeconds' in verdict) {
            await db.query('COMMIT');
            return verdict;
          }
          const id = randomUUID();
          await db.query(
            'INSERT INTO gw_sign_in_attempts (id, scope, address, pair, instance, expires_at) VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))',
            [id, scope, client, pair, instance, windowSeconds + MAX_ATTEMPT_SECONDS],
          );
          await db.query('COMMIT');
          let outcome: 'failure' | 'success' | 'unchecked' = 'failure';
          let ended = false;
          return {
            delayMs: verdict.delayMs,
            succeeded: () => void (outcome = 'success'),
            unchecked: () => void (outcome = 'unchecked'),
            async end() {
              if (ended) return;
              ended = true;
              if (outcome === 'failure') return settle('a failure', 'UPDATE gw_sign_in_attempts SET failed_at = now(), expires_at = now() + make_interval(secs => $2) WHERE id = $1', [id, windowSeconds]);
              await settle('an attempt', 'DELETE FROM gw_sign_in_attempts WHERE id = $1', [id]);
              // A success clears the name's failures from this address; the address's ceiling still counts them.
              if (outcome === 'success') await settle('a success', 'UPDATE gw_sign_in_attempts SET name_cleared = true WHERE scope = $1 AND pair = $2 AND failed_at IS NOT NULL', [scope, pair]);
            },
          };
        } catch (err) {
          await db.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
      }),
    close: () => clearInterval(prune),
  };
}
