/**
 * Public types of the `audit` plugin: the `audit` service every plugin records operator actions
 * through. A plugin lists `audit` in its `optionalDependencies` and records with
 * `await ctx.useOptional('audit')?.record({...})` (or `track`), so it works with the trail off.
 */
import type { RequestActor, RouteRequest } from '../../core/plugin-api.js';

/** Who acted: a route's request (its signed-in user and client address), or the actor named directly. */
export type AuditActor = Pick<RouteRequest, 'user' | 'ip'> | RequestActor;

export type { AuditClass, AuditDetail, AuditOutcome, AuditRecord } from './audit-schemas.js';
import type { AuditDetail, AuditOutcome } from './audit-schemas.js';

/** What a plugin records. */
export interface AuditEntry {
  by: AuditActor;
  /** Dotted and stable, `<area>.<verb>`, e.g. `power.change`, `scan.start`; at most 64 characters. */
  action: string;
  /** What it was done to (a device id, a user name, a scan id); null when nothing in particular. */
  target?: string | null;
  /** Default `success`. */
  outcome?: AuditOutcome;
  detail?: AuditDetail;
}

/** The `audit` service. */
export interface AuditTrail {
  /**
   * Appends a record; resolves once it is on disk (a LevelDB write a kill -9 does not undo), so
   * answer the request after it. Never rejects: a record that cannot be written is logged.
   */
  record(entry: AuditEntry): Promise<void>;
  /**
   * Runs `work` and records its outcome before handing it on: `success` with `detailOf(result)`
   * merged into the detail, or `failure` with the error's `code` and `status`, and rethrows.
   */
  track<T>(entry: Omit<AuditEntry, 'outcome'>, work: () => T | Promise<T>, detailOf?: (result: T) => AuditDetail): Promise<T>;
}

declare module '../../core/plugin-api.js' {
  interface GatewayServices {
    audit: AuditTrail;
  }
}
