/**
 * The contract of a worker-pool task. A task is a file under `workers/tasks/` (or any module path a
 * plugin names) whose default export is a {@link TaskFunction}. Input and output must be
 * structured-clone-able. Tasks run in a worker thread: they may open sockets; the main thread never does.
 */

/** What the pool hands a running task besides its input. */
export interface TaskTools<TProgress = unknown> {
  /** Sends a progress message to the caller's `onProgress` while the task runs. */
  progress(message: TProgress): void;
  /** True once the caller cancelled the task. */
  cancelled(): boolean;
  /** Aborts (within ~50 ms) once the caller cancelled the task; pass it to sockets and timers. */
  readonly signal: AbortSignal;
}

export type TaskFunction<TInput = unknown, TOutput = unknown, TProgress = unknown> = (
  input: TInput,
  tools: TaskTools<TProgress>,
) => Promise<TOutput>;

/**
 * Typed task names. The task files augment this interface (see `workers/tasks/task-types.ts`):
 * `interface WorkerTasks { 'probe-batch': { input: ...; output: ...; progress: ... } }`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface WorkerTasks {}

/** The envelope the pool sends to the worker entry. */
export interface TaskEnvelope {
  file: string;
  input: unknown;
  progressPort?: import('node:worker_threads').MessagePort;
  cancelFlag?: Int32Array;
}

/** @internal What the pool tells each worker thread: where the built-in tasks are, for preloading. */
export interface WorkerEntryData {
  taskDir: string;
  /** `.ts` under tsx, `.js` once compiled. */
  taskExtension: string;
  /** Where the thread writes its event-loop delay while it runs tasks, and the board's layout (core/pool/thread-delay.ts). */
  delayBoard?: { buffer: SharedArrayBuffer; beatMs: number; slotFields: number };
}

/**
 * The URL of a task module beside `base` (pass `import.meta.url`), with the extension `base` runs
 * as: `taskFile(import.meta.url, './checksum-task')` names `checksum-task.ts` under tsx and
 * `checksum-task.js` once compiled. Give the result to `ctx.pool.runFile`.
 */
export function taskFile(base: string | URL, relative: string): string {
  const from = new URL(base);
  const extension = /\.[cm]?[jt]s$/.exec(from.pathname)?.[0] ?? '.js';
  return new URL(`${relative}${extension}`, from).href;
}

/**
 * A device's WS-Management service as a device task sees it: every request signed by the device gate's
 * sign-in (the task never sees the credential), on one connection kept alive for the task.
 */
export interface WsmanSession {
  /** Gets one instance (the singleton when `selectors` is omitted). */
  get(className: string, selectors?: Record<string, string>): Promise<import('./amt/wsman-parse.js').WsmanItem>;
  /** Replaces an instance; returns it as the device stored it, or null when the device answers with an empty Body. */
  put(className: string, properties: import('./amt/wsman-envelope.js').InputProperties, selectors?: Record<string, string>): Promise<import('./amt/wsman-parse.js').WsmanItem | null>;
  /** Invokes a method; a non-zero `returnValue` is the caller's to judge. */
  invoke(className: string, method: string, input: import('./amt/wsman-envelope.js').InputProperties, selectors?: Record<string, string>): Promise<import('./amt/wsman-parse.js').MethodOutput>;
  /** Enumerates every instance of a class (Enumerate, then Pull to the end). */
  enumerate(className: string): Promise<import('./amt/wsman-parse.js').WsmanItem[]>;
}

/** What a device task is handed besides its session and input. */
export interface DeviceTaskTools {
  /** Aborts when the operation is cancelled (the gateway stops); pass it to timers. */
  readonly signal: AbortSignal;
}

/**
 * One device operation's steps, run by the device gate in one turn of the device on one connection
 * (`deviceGate.run(device, name, input)`): a module under `workers/device-tasks/`, or one a plugin
 * registers (`deviceGate.registerTask`), default-exporting this. Device failures are thrown (the
 * gate turns them into problems); what the operation decided (a refusal) is returned as data.
 */
export type DeviceTaskFunction<TInput = unknown, TOutput = unknown> = (wsman: WsmanSession, input: TInput, tools: DeviceTaskTools) => Promise<TOutput>;

/**
 * Typed device task names: the built-in ones augment this interface (workers/device-tasks/device-task-types.ts),
 * a plugin registering its own does the same, so that `deviceGate.run(device, 'power-read', input)` is typed.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DeviceTaskMap {}
