/** The `deviceGate` service: the gate's one call, its path extension point, and the reads it merges. */
import type { Logger } from '../../../core/plugin-api.js';
import { MIN_PROBES_IN_FLIGHT, openFileLimit, socketBudget } from './socket-budget.js';
import type { CredentialVault, DeviceGate, DeviceSettings, SignInSettings } from '../api.js';
import type { ManagedDeviceRegistry } from '../registry/device-registry.js';
import type { SignInMemory } from '../sign-in/sign-in-memory.js';
import type { DeviceGateCore } from './device-gate.js';
import type { DeviceTurns } from './device-turns.js';
import { createDeviceRead, type DeviceReadParts } from './device-read.js';
import { deviceOfTarget } from './named-target.js';

export interface GateServiceParts extends Omit<DeviceReadParts, 'devices'> {
  gate: DeviceGateCore;
  devices: ManagedDeviceRegistry;
  credentials: CredentialVault;
  signIn: SignInMemory;
  turns: DeviceTurns;
  /** The object the sign-in memory reads its settings from at each plan. */
  signInSettings: SignInSettings;
  settings: DeviceSettings;
  logger: Logger;
}

export function createGateService(parts: GateServiceParts): DeviceGate {
  const { gate, devices, turns } = parts;
  return {
    registerPath: (path) => gate.paths.register(path),
    pathKinds: () => gate.paths.kinds(),
    run: (subject, operation, options) => gate.pass(subject, operation, options),
    read: createDeviceRead(parts),
    deviceNamed: (text, path) => deviceOfTarget(devices, text, path),
    settings: parts.settings,
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
