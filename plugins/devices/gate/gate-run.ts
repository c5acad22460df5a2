/**
 * `deviceGate.run`: a device task by name, through one pass of the gate, every step of it in one
 * `device-task` worker task on one connection, on the Digest session the device's last operation
 * left. Each operation's kind, outcome and duration are published (DeviceOperationCompleted).
 */
import { isHttpError } from '../../../core/plugin-api.js';
import type { DeviceTaskRunOutput } from '../../../workers/tasks/task-types.js';
import type { DeviceGate, DeviceOperationCompletedEvent, DeviceRunOptions } from '../api.js';
import type { DeviceGateCore } from './device-gate.js';
import type { DeviceTaskRegistry } from './device-task-registry.js';
import type { DigestSessions } from './digest-sessions.js';

/** The bounds of an operation a caller leaves to the gate. */
export const RUN_DEFAULTS = { connectTimeoutMs: 3_000, requestTimeoutMs: 10_000, credentialAttempts: 3 } as const;

export interface GateRunParts {
  gate: DeviceGateCore;
  tasks: DeviceTaskRegistry;
  digests: DigestSessions;
  /** The version of a credential's username and password (a Digest session is kept per version). */
  versionOf(credentialId: string): string | undefined;
  completed(event: DeviceOperationCompletedEvent): void;
}

/** The gate's timeouts for `options`: connect, first byte, and each whole request. */
export function timeoutsOf(options: DeviceRunOptions | undefined): { connectMs: number; firstByteMs: number; totalMs: number } {
  const requestMs = options?.requestTimeoutMs ?? RUN_DEFAULTS.requestTimeoutMs;
  return { connectMs: options?.connectTimeoutMs ?? RUN_DEFAULTS.connectTimeoutMs, firstByteMs: requestMs, totalMs: requestMs };
}

export function createGateRun(parts: GateRunParts): DeviceGate['run'] {
  const { gate, tasks, digests } = parts;
  return async (device, task, input, options) => {
    const file = tasks.locate(task);
    const started = performance.now();
    let outcome = 'ok';
    try {
      const { value } = await gate.pass(
        { address: device.ipAddress, device },
        async ({ target, credential }, runner) => {
          const version = parts.versionOf(credential.id);
          const digest = digests.take(target, credential.id, version);
          const out: DeviceTaskRunOutput = await runner.run('device-task', { target, credential, digest, task: file, input });
          digests.keep(target, credential.id, version, out.digest);
          return out;
        },
        { timeouts: timeoutsOf(options), credentialAttempts: options?.credentialAttempts ?? RUN_DEFAULTS.credentialAttempts, ...(options?.via ? { via: options.via } : {}) },
      );
      return value.value as never;
    } catch (err) {
      outcome = isHttpError(err) && typeof err.code === 'string' ? err.code : 'error';
      throw err;
    } finally {
      parts.completed({ operation: task, outcome, durationSeconds: (performance.now() - started) / 1000 });
    }
  };
}
