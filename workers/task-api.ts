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
