/**
 * Task `device-task`: one device operation, all of its steps, on one connection: the device task the
 * gate names (a built-in one by name, or a plugin's registered module by its URL) runs against a
 * WS-Management client signed in with the one credential the gate gives, on the Digest session the
 * gate kept from the device's last operation. The outcome is data; it never throws.
 */
import type { DeviceTaskFunction, TaskTools } from '../task-api.js';
import { AmtError } from '../amt/errors.js';
import { runDeviceOperation } from '../amt/device-operation.js';
import { BUILT_IN_DEVICE_TASKS } from '../device-tasks/built-in.js';
import type { DeviceTaskRunInput, DeviceTaskRunOutput } from './task-types.js';

/** Registered task modules, once loaded (import() of a cached module still runs the loader's hooks). */
const registered = new Map<string, Promise<{ default?: unknown }>>();

async function loadDeviceTask(task: unknown): Promise<DeviceTaskFunction<unknown, unknown>> {
  const builtIn = typeof task === 'string' ? BUILT_IN_DEVICE_TASKS[task] : undefined;
  if (builtIn && Object.hasOwn(BUILT_IN_DEVICE_TASKS, task as string)) return (await builtIn()).default as DeviceTaskFunction<unknown, unknown>;
  if (typeof task !== 'string' || !task.startsWith('file:')) throw new AmtError('AMT_ERR_INVALID_INPUT', 'task names a built-in device task or a registered module');
  let module = registered.get(task);
  if (!module) {
    module = import(task) as Promise<{ default?: unknown }>;
    registered.set(task, module);
    module.catch(() => registered.delete(task));
  }
  const run = (await module).default;
  if (typeof run !== 'function') throw new AmtError('AMT_ERR_INVALID_INPUT', 'the device task module has no default export function');
  return run as DeviceTaskFunction<unknown, unknown>;
}

export default async function deviceTask(input: DeviceTaskRunInput, tools: TaskTools): Promise<DeviceTaskRunOutput> {
  const result = await runDeviceOperation(
    input?.target,
    input?.credential,
    tools.signal,
    async (client) => {
      const run = await loadDeviceTask(input.task);
      return { value: await run(client, input.input, { signal: tools.signal }) };
    },
    input?.digest ?? null,
  );
  return { ...result, digest: result.digest ?? null };
}
