/**
 * The `deviceGate` service: the gate's one call (`run`), the device I/O of other shapes (reads,
 * checks, probes, proofs, sessions), its extension points (paths, a turn provider, device tasks),
 * and what callers need to know of it (settings, networks, budget).
 */
import { HttpError, type Logger, type WorkerPool } from '../../../core/plugin-api.js';
import type { TurnTable } from '../../../workers/amt/turn-table.js';
import type { DeviceGate, DeviceOperationCompletedEvent, DeviceSettings, DeviceTurnProvider, SignInSettings } from '../api.js';
import type { ManagedCredentialVault } from '../credentials/credential-vault.js';
import type { ManagedDeviceRegistry } from '../registry/device-registry.js';
import type { SignInMemory } from '../sign-in/sign-in-memory.js';
import type { DeviceGateCore } from './device-gate.js';
import type { DeviceTurns } from './device-turns.js';
import { createDeviceRead } from './device-read.js';
import { createDeviceCheck } from './device-check.js';
import { createDeviceProbes } from './device-probes.js';
import { createDeviceSessions } from './device-sessions.js';
import { createDeviceTaskRegistry } from './device-task-registry.js';
import { createDigestSessions } from './digest-sessions.js';
import { createGateRun } from './gate-run.js';
import { createGateAlong } from './gate-along.js';
import { createIdentityProof } from './identity-proof.js';
import { DEVICE_PROBLEM_RESPONSES } from './device-problems.js';
import { deviceOfTarget } from './named-target.js';
import { MIN_PROBES_IN_FLIGHT, openFileLimit, socketBudget } from './socket-budget.js';

/** The devices plugin's API: 2.0 since kernel API 1.5 (`run` by task name; no credential leaves the gate). */
export const DEVICES_API_VERSION = '2.0.0';

export interface GateServiceParts {
  gate: DeviceGateCore;
  devices: ManagedDeviceRegistry;
  credentials: ManagedCredentialVault;
  signIn: SignInMemory;
  turns: DeviceTurns;
  /** The turn table the gate's operations share with the probes of the worker threads. */
  table: TurnTable;
  /** Where the registered turn provider is kept (the device turns read it at each turn). */
  turnProvider: { current: DeviceTurnProvider | undefined };
  /** The object the sign-in memory reads its settings from at each plan. */
  signInSettings: SignInSettings;
  settings: DeviceSettings;
  pool: WorkerPool;
  logger: Logger;
  completed(event: DeviceOperationCompletedEvent): void;
}

export function createGateService(parts: GateServiceParts): DeviceGate {
  const { gate, devices, turns, settings } = parts;
  const tasks = createDeviceTaskRegistry();
  return {
    apiVersion: DEVICES_API_VERSION,
    registerPath: (path) => gate.paths.register(path),
    pathKinds: () => gate.paths.kinds(),
    registerTurnProvider(provider) {
      const held = parts.turnProvider.current;
      if (held) throw new HttpError(500, 'GW_ERR_DEVICE_TURN_CLASH', `the device turn provider of plugin '${provider.plugin}' clashes with the one plugin '${held.plugin}' registered; one is registered`);
      parts.turnProvider.current = provider;
    },
    registerTask: (task) => tasks.register(task),
    run: createGateRun({ gate, tasks, digests: createDigestSessions(), versionOf: (id) => parts.credentials.signInVersion(id), completed: parts.completed }),
    runAlong: createGateAlong(gate),
    read: createDeviceRead({ gate, devices, signIn: parts.signIn, settings, logger: parts.logger }),
    check: createDeviceCheck(gate, settings),
    probe: createDeviceProbes(parts.pool, parts.table, settings, gate.networks, { turns, provider: () => parts.turnProvider.current, known: (address) => devices.findByAddress(address) !== undefined }),
    proveIdentity: createIdentityProof({ paths: gate.paths, turns, pool: parts.pool, settings }),
    openSession: createDeviceSessions(gate),
    deviceNamed: (text, path) => deviceOfTarget(devices, text, path),
    problemResponses: DEVICE_PROBLEM_RESPONSES,
    settings,
    allows: (address) => gate.networks.allows(address),
    probeBudget(asked) {
      const budget = socketBudget(openFileLimit(), { deviceConnections: turns.bounds.maximum, ...asked });
      return { fileLimit: budget.fileLimit, probesPerScan: budget.probesPerScan, minimum: MIN_PROBES_IN_FLIGHT, warning: budget.warning };
    },
    get deviceConnections() {
      return turns.bounds.maximum;
    },
    applyDeprecatedOptions(from, options) {
      if (options.signIn) Object.assign(parts.signInSettings, options.signIn);
      if (options.deviceConnections !== undefined) turns.rebound({ ...turns.bounds, maximum: fitDeviceConnections(options.deviceConnections, parts.logger) });
      parts.logger.warn(`plugins.${from}.options ${Object.keys(options).join(' and ')} are deprecated: set them under plugins.devices.options`);
    },
  };
}

/** The device connections asked for, lowered to fit `ulimit -n` (at most half of what is left after a reserve). */
export function fitDeviceConnections(asked: number, logger: Pick<Logger, 'warn'>): number {
  const budget = socketBudget(openFileLimit(), { deviceConnections: asked, probesPerScan: 0, maxConcurrentScans: 1 });
  if (budget.deviceConnections < asked) logger.warn(`ulimit -n is ${budget.fileLimit}: device connections lowered to ${budget.deviceConnections} (asked ${asked}); raise the limit (ulimit -n, systemd LimitNOFILE=) for full speed`);
  return budget.deviceConnections;
}
