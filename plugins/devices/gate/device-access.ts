/**
 * The `deviceAccess` service: device operations (power, monitor reads, redirection, a tunnel's
 * reads) with the caller's time and attempt bounds, each one call of the device gate.
 */
import { isHttpError } from '../../../core/plugin-api.js';
import type { DeviceAccess, DeviceAccessFactory, DeviceAccessOptions, DeviceOperationCompletedEvent } from '../api.js';
import type { DeviceGateCore } from './device-gate.js';
import { DEVICE_PROBLEM_RESPONSES } from './device-problems.js';

export function createDeviceAccessFactory(gate: DeviceGateCore, completed: (event: DeviceOperationCompletedEvent) => void): DeviceAccessFactory {
  return {
    create: (options) => timedAccess(accessThrough(gate, options), completed),
    problemResponses: DEVICE_PROBLEM_RESPONSES,
    allows: (address) => gate.networks.allows(address),
    setRouter: (router) => gate.paths.setLegacyRouter(router),
  };
}

function accessThrough(gate: DeviceGateCore, options: DeviceAccessOptions): DeviceAccess {
  const service = options.service ?? 'management';
  return {
    run: (device, operation, given) =>
      gate.pass({ address: device.ipAddress, device }, operation, {
        service,
        // A redirection session opens its channel itself, later.
        purpose: service === 'redirection' ? 'session' : 'operation',
        timeouts: { connectMs: options.connectTimeoutMs, firstByteMs: options.requestTimeoutMs, totalMs: options.requestTimeoutMs },
        credentialAttempts: options.credentialAttempts,
        ...(given ? { credential: given } : {}),
      }),
  };
}

/** Reports each operation's kind (the first task it runs), outcome (`ok` or its problem code) and duration. */
function timedAccess(access: DeviceAccess, completed: (event: DeviceOperationCompletedEvent) => void): DeviceAccess {
  return {
    async run(device, operation, given) {
      const started = performance.now();
      let kind: string | undefined;
      let outcome = 'ok';
      try {
        return await access.run(device, (input, tasks) => operation(input, { run: (task, taskInput, runOptions) => ((kind ??= task), tasks.run(task, taskInput, runOptions)) }), given);
      } catch (err) {
        outcome = isHttpError(err) && typeof err.code === 'string' ? err.code : 'error';
        throw err;
      } finally {
        completed({ operation: kind ?? 'none', outcome, durationSeconds: (performance.now() - started) / 1000 });
      }
    },
  };
}
