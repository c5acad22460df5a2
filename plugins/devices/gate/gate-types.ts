/** Types the gate's parts share; none of them leaves the devices plugin (they carry credentials). */
import type { WorkerPool } from '../../../core/plugin-api.js';
import type { AmtFailure, DeviceOperationInput, TaskCredential } from '../../../workers/tasks/task-types.js';

/** Runs the device tasks of one operation where its target can be reached: the worker pool, or in-process for a channel route. */
export type DeviceTasks = Pick<WorkerPool, 'run'>;

/** What every attempt of the gate returns: its value or a failure, and the certificate it saw. */
export type TaskOutcome = ({ ok: true } | { ok: false; error: AmtFailure }) & { tlsFingerprint: string | null; failedLogins?: number; tlsProtocol?: string | null };

/** The path the gate chose: `lan` (the device's address on the local network) or a registered path's kind. */
export interface GatePath {
  kind: string;
}

/** One attempt of an operation: the target and the one credential the gate unsealed for it. */
export type GateAttempt<R extends TaskOutcome> = (input: DeviceOperationInput, tasks: DeviceTasks, path: GatePath) => Promise<R>;

/** The bounds and credentials of one pass of the gate (internal: the public calls fill them in). */
export interface GatePassOptions {
  service?: 'management' | 'redirection';
  /** `session`: a redirection session that opens its own channel later (a path opens none ahead). */
  purpose?: 'operation' | 'session';
  /** As `DeviceRunOptions.via`. */
  via?: string;
  timeouts: { connectMs: number; firstByteMs: number; totalMs: number };
  /** This stored credential alone (a diagnostic of one credential), with one re-authentication. */
  credentialId?: string;
  /**
   * A credential the calling plugin holds itself (never one of the vault's: the activation plugin's
   * agent account, a password it set), alone, with one re-authentication.
   */
  credential?: TaskCredential;
  /** Credential ids to choose from (a scan's); default every stored one. */
  candidates?: readonly string[];
  /** Credentials tried at most (the sign-in memory may allow fewer). */
  credentialAttempts: number;
  /**
   * Runs once without a credential when none may be tried (none stored, every one refused earlier,
   * sign-ins paused), to learn what the device tells without one; the problem is thrown after it.
   */
  withoutCredential?: (target: DeviceOperationInput['target'], tasks: DeviceTasks, path: GatePath) => Promise<unknown>;
}
