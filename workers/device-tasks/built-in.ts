/**
 * The built-in device tasks by name, loaded when first run. A built-in task is handed the
 * WS-Management client itself (a third-party task sees it as a {@link WsmanSession}).
 */
import type { DeviceTaskTools } from '../task-api.js';
import type { WsmanClient } from '../amt/wsman-client.js';

/** A built-in device task: the reads of workers/amt take the client. */
export type BuiltInDeviceTask<TInput, TOutput> = (wsman: WsmanClient, input: TInput, tools: DeviceTaskTools) => Promise<TOutput>;

type Loader = () => Promise<{ default: BuiltInDeviceTask<never, unknown> }>;

export const BUILT_IN_DEVICE_TASKS: Readonly<Record<string, Loader>> = {
  'power-read': () => import('./power-read.js'),
  'power-change': () => import('./power-change.js'),
  inventory: () => import('./inventory.js'),
  'event-log': () => import('./event-log.js'),
  'redirection-read': () => import('./redirection-read.js'),
  'redirection-write': () => import('./redirection-write.js'),
  'opt-in': () => import('./opt-in.js'),
};
