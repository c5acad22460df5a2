/**
 * The device tasks `run` knows by name: the built-in ones (workers/device-tasks), and those plugins
 * register (the extension point of `registerTask`), each a module the worker loads by its URL.
 */
import { HttpError } from '../../../core/plugin-api.js';
import { BUILT_IN_DEVICE_TASKS } from '../../../workers/device-tasks/built-in.js';
import type { DeviceTaskRegistration } from '../api.js';

const NAME = /^[a-z][a-z0-9-]{0,63}$/;

export interface DeviceTaskRegistry {
  register(task: DeviceTaskRegistration): void;
  /** What the `device-task` worker task is given: a built-in name, or a registered module's URL. @throws 500 for an unknown name. */
  locate(name: string): string;
}

const clash = (name: string, holder: string, asker: string) =>
  new HttpError(500, 'GW_ERR_DEVICE_TASK_CLASH', `device task '${name}' of plugin '${asker}' clashes with the one ${holder === 'devices' ? 'built in' : `plugin '${holder}' registered`}; a task name is registered once`);

export function createDeviceTaskRegistry(): DeviceTaskRegistry {
  const registered = new Map<string, DeviceTaskRegistration>();
  return {
    register(task) {
      if (!NAME.test(task.name)) throw new HttpError(500, 'GW_ERR_DEVICE_TASK_INVALID', `device task name '${task.name}' of plugin '${task.plugin}' is not kebab-case (a-z, 0-9, -)`);
      if (!task.file.startsWith('file:')) throw new HttpError(500, 'GW_ERR_DEVICE_TASK_INVALID', `device task '${task.name}' of plugin '${task.plugin}' names no module URL (taskFile(import.meta.url, ...))`);
      if (Object.hasOwn(BUILT_IN_DEVICE_TASKS, task.name)) throw clash(task.name, 'devices', task.plugin);
      const held = registered.get(task.name);
      if (held) throw clash(task.name, held.plugin, task.plugin);
      registered.set(task.name, { ...task });
    },
    locate(name) {
      if (Object.hasOwn(BUILT_IN_DEVICE_TASKS, name)) return name;
      const task = registered.get(name);
      if (!task) throw new HttpError(500, 'GW_ERR_DEVICE_TASK_UNKNOWN', `no device task '${name}' is built in or registered`);
      return task.file;
    },
  };
}
