/**
 * A device's scan items read through the gate (one `interrogate` task per credential the gate
 * gives, or one without a credential when it gives none) and merged into the device record: the
 * same read for a scan on the local network and for a device reached through its CIRA tunnel.
 */
import { isHttpError, type Logger } from '../../../core/plugin-api.js';
import type { DeviceTarget, InterrogateInput, InterrogateOutput, TaskCredential } from '../../../workers/tasks/task-types.js';
import type { Device, DeviceReadOptions, DeviceReadResult, DeviceSettings, GateSubject } from '../api.js';
import type { ManagedDeviceRegistry } from '../registry/device-registry.js';
import type { SignInMemory } from '../sign-in/sign-in-memory.js';
import { signInKey } from '../sign-in/sign-in-key.js';
import type { DeviceGateCore } from './device-gate.js';
import { readOutcome, refreshPatch, scanObservation } from './read-merge.js';
import type { DeviceTasks } from './gate-types.js';

export interface DeviceReadParts {
  gate: DeviceGateCore;
  devices: ManagedDeviceRegistry;
  signIn: SignInMemory;
  settings: DeviceSettings;
  logger: Logger;
}

const CANCELLED = { code: 'AMT_ERR_CANCELLED' as const, message: 'cancelled' };

export function createDeviceRead(parts: DeviceReadParts): (subject: GateSubject, options: DeviceReadOptions) => Promise<DeviceReadResult> {
  const { gate, devices, settings } = parts;
  const { ports } = settings;

  const task = (tasks: DeviceTasks, target: DeviceTarget, credential: TaskCredential | null, options: DeviceReadOptions): Promise<InterrogateOutput> => {
    const input: InterrogateInput = {
      address: target.address,
      ports: { ...ports, http: target.port, https: target.port },
      tls: target.tls,
      credential,
      timeouts: options.timeouts,
      tlsTrust: settings.tlsTrust,
      pinnedFingerprint: target.pinnedFingerprint,
      ...(target.channel ? { channel: target.channel } : {}),
      readUuid: options.readUuid !== false,
    };
    return tasks.run('interrogate', input, options.cancel ? { cancel: options.cancel } : undefined);
  };

  return async (given, options) => {
    // A scan names an address: the device stored there (if any) brings its sign-in memory, working credential and pin.
    const known = given.device ?? (options.record.kind === 'scan' ? devices.findByAddress(given.address) : undefined);
    const subject: GateSubject = known ? { ...given, device: known } : given;
    let output: InterrogateOutput | undefined;
    let problem: unknown = null;
    const cancelled = () => options.cancel?.cancelled === true;
    try {
      await gate.pass(
        subject,
        async ({ target, credential }, tasks) => {
          if (cancelled()) return { ok: false, error: CANCELLED, tlsFingerprint: null };
          output = await task(tasks, target, credential, options);
          return readOutcome(output);
        },
        {
          timeouts: options.timeouts,
          via: options.record.kind === 'scan' ? 'lan' : (options.via ?? 'any'),
          credentialAttempts: options.credentialAttempts,
          ...(options.candidates ? { candidates: options.candidates } : {}),
          withoutCredential: async (target, tasks) => void (cancelled() ? undefined : (output = await task(tasks, target, null, options))),
        },
      );
    } catch (err) {
      problem = err;
    }
    if (!output || cancelled() || output.error?.code === 'AMT_ERR_CANCELLED') return { device: undefined, created: false, output: undefined, problem };
    const merged = await merge(subject, output, problem, options);
    return { ...merged, output, problem };
  };

  async function merge(subject: GateSubject, output: InterrogateOutput, problem: unknown, options: DeviceReadOptions): Promise<{ device: Readonly<Device> | undefined; created: boolean }> {
    const paused = isHttpError(problem) && problem.code === 'GW_ERR_SIGN_IN_PAUSED';
    if (options.record.kind === 'scan') {
      const probed = (await options.record.probed) ?? { openPorts: subject.openPorts ?? [], pong: options.record.pong ?? null };
      const observation = scanObservation({ address: subject.address, ...probed }, output, subject.device, ports.https);
      if (observation.authStatus !== 'ok' && (paused || parts.signIn.paused(signInKey(subject.device, subject.address, false)))) observation.authStatus = 'locked-out-risk';
      return devices.record(observation, options.record.scanId);
    }
    const current = subject.device ? devices.get(subject.device.id) : undefined;
    if (!current) return { device: undefined, created: false };
    const patch = refreshPatch(current, output);
    // The gate keeps authStatus (ok, or locked-out-risk while sign-ins are paused); a read without credentials knows less.
    if (problem === null || current.authStatus === 'locked-out-risk') delete patch.authStatus;
    else if (isHttpError(problem) && problem.code === 'GW_ERR_DEVICE_UNAUTHORIZED') patch.authStatus = 'unauthorized';
    return { device: await devices.update(current.id, patch), created: false };
  }
}
