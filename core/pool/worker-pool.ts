import { MessageChannel } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { isAbsolute } from 'node:path';
import { Piscina } from 'piscina';
import { setMaxListeners } from 'node:events';
import type { WorkerTasks, TaskEnvelope, TaskFunction, WorkerEntryData } from '../../workers/task-api.js';
import { CODE_EXTENSION, codePath } from '../assets/package-root.js';
import { createSemaphore } from '../util/semaphore.js';
import { BEAT_MS, createThreadDelayBoard, SLOT_FIELDS, type ThreadLoad } from './thread-delay.js';

const ENTRY = codePath('workers', 'worker-entry.mjs');
// The built-in tasks are built as the rest of the code: `.ts` under tsx, `.js` compiled.
const TASK_EXTENSION = CODE_EXTENSION;
const TASK_DIR = pathToFileURL(codePath('workers', 'tasks') + '/');

/** A cancellation flag shared with the worker threads running a group of tasks. */
export interface CancelToken {
  cancel(): void;
  readonly cancelled: boolean;
  /** @internal the shared memory the worker polls */
  readonly flag: Int32Array;
}

type TaskName = keyof WorkerTasks & string;
type Field<K extends TaskName, F extends string> = WorkerTasks[K] extends Record<F, infer V> ? V : never;

export interface TaskRunOptions<TProgress = unknown> {
  /** Receives the task's progress messages while it runs. */
  onProgress?: (message: TProgress) => void;
  /** Cooperative cancellation: the running task sees it within ~50 ms and stops; its worker lives on. */
  cancel?: CancelToken;
  /**
   * The task spends nearly all its time waiting on I/O (a peer's answers): it takes none of the
   * `concurrentTasksPerWorker` slots, which stay for work that needs the CPU. The caller bounds how
   * many such tasks run (e.g. the devices plugin admits one per device, within the sockets it may hold).
   */
  waitsOnIo?: boolean;
  /** @deprecated since kernel API 1.5: `waitsOnIo`. */
  waitsOnDevice?: boolean;
}

/** The worker pool that runs tasks off the main thread: every plugin's I/O and CPU work (the devices plugin's device I/O among them). */
export interface WorkerPool {
  /** Runs a task from `workers/tasks/` by name. */
  run<K extends TaskName>(task: K, input: Field<K, 'input'>, options?: TaskRunOptions<Field<K, 'progress'>>): Promise<Field<K, 'output'>>;
  /** Runs a task from any module (absolute path or file URL), e.g. one a third-party plugin ships. */
  runFile<TOutput = unknown, TProgress = unknown>(file: string, input: unknown, options?: TaskRunOptions<TProgress>): Promise<TOutput>;
  /**
   * Runs a task from `workers/tasks/` by name on the calling thread, with the same tools (progress,
   * cancellation) as in a worker: for an input that cannot be cloned to a worker thread because it
   * holds a live object (a stream, e.g. a CIRA tunnel's channel into a device). It runs on the
   * event loop of its caller, so the caller bounds how many run at once.
   */
  runInProcess<K extends TaskName>(task: K, input: Field<K, 'input'>, options?: TaskRunOptions<Field<K, 'progress'>>): Promise<Field<K, 'output'>>;
  createCancelToken(): CancelToken;
  /**
   * What the threads running tasks (the worker threads, and this thread) showed since the previous
   * call: the longest event-loop delay and the busiest one's utilisation (see core/pool/thread-delay.ts).
   * Each call starts the next window, so one consumer reads it: the one that admits I/O-waiting
   * tasks by it (in a full gateway the devices plugin).
   */
  threadLoad(): ThreadLoad;
  /** Whether the pool takes tasks: not when closed, its threads are gone, or its queue is full. */
  status(): { ready: boolean; reason?: string };
  close(): Promise<void>;
}

export interface WorkerPoolOptions {
  threads: number;
  concurrentTasksPerWorker: number;
  maxQueue: number;
  idleTimeoutMs: number;
  /** I/O-waiting tasks (`waitsOnIo`) the threads take besides their slots, all threads together (default 16,384). */
  ioWaitRoom?: number;
  /** @deprecated since kernel API 1.5: `ioWaitRoom`. */
  deviceWaitRoom?: number;
}

const DEFAULT_IO_WAIT_ROOM = 16_384;

export function createCancelToken(): CancelToken {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  return {
    flag,
    get cancelled() {
      return Atomics.load(flag, 0) !== 0;
    },
    cancel() {
      Atomics.store(flag, 0, 1);
    },
  };
}

function taskFileUrl(file: string): string {
  if (file.startsWith('file:')) return file;
  if (isAbsolute(file)) return pathToFileURL(file).href;
  throw new Error(`task file must be absolute: ${file}`);
}

const CANCEL_POLL_MS = 50;

type TaskModule = { default: TaskFunction<unknown, unknown, unknown> };
/** import() of a cached module still runs the loader's resolve hooks (tsx's among them); the built-in tasks are few, keep them. */
const loadedTasks = new Map<string, Promise<TaskModule>>();
function loadTask(file: string): Promise<TaskModule> {
  let module = loadedTasks.get(file);
  if (!module) {
    module = import(file) as Promise<TaskModule>;
    loadedTasks.set(file, module);
    module.catch(() => loadedTasks.delete(file));
  }
  return module;
}

/** A task module run on this thread, as `workers/worker-entry.mjs` runs it in a worker (cancellation polled alike). */
async function runTaskHere<TOutput, TProgress>(file: string, input: unknown, runOptions: TaskRunOptions<TProgress> = {}): Promise<TOutput> {
  const module = (await loadTask(file)) as { default: TaskFunction<unknown, TOutput, TProgress> };
  const { cancel, onProgress } = runOptions;
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const stop = (): void => controller.abort(new Error('task cancelled'));
  const poll = cancel ? setInterval(() => cancel.cancelled && stop(), CANCEL_POLL_MS) : undefined;
  poll?.unref();
  try {
    if (cancel?.cancelled) stop();
    return await module.default(input, { progress: (message) => onProgress?.(message), cancelled: () => cancel?.cancelled ?? false, signal: controller.signal });
  } finally {
    if (poll) clearInterval(poll);
  }
}

export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  // The threads start with the first task, not with the gateway: booting them (~50 ms of CPU
  // each) would compete with the start for the CPUs, before any task is asked for, and they
  // would hold ~43 MiB of an idle gateway's RSS (BENCHMARKS.md, "First scan and the fleet's share").
  let piscina: Piscina | undefined;
  let closed = false;
  // Piscina bounds tasks per thread; the slots of ordinary tasks are bounded here instead, so that
  // I/O-waiting tasks can have the room beyond them without taking any.
  const slots = createSemaphore(options.threads * options.concurrentTasksPerWorker);
  const ioRoomPerThread = Math.ceil((options.ioWaitRoom ?? options.deviceWaitRoom ?? DEFAULT_IO_WAIT_ROOM) / Math.max(1, options.threads));
  const delays = createThreadDelayBoard(() => piscina?.threads ?? []);
  const threads = () =>
    (piscina ??= new Piscina({
      filename: ENTRY,
      // All threads at once: with several tasks per worker, Piscina would otherwise keep every
      // task on the first thread until it is full, leaving the other cores idle.
      minThreads: options.threads,
      maxThreads: options.threads,
      concurrentTasksPerWorker: options.concurrentTasksPerWorker + ioRoomPerThread,
      // An idle thread waits for work in its event loop rather than blocked in Atomics.wait, so that its
      // utilisation (threadLoad) reads idle, not busy; at our task rates the extra wake-up is no cost.
      atomics: 'disabled',
      maxQueue: options.maxQueue,
      idleTimeout: options.idleTimeoutMs,
      // No young-generation size of their own: under the bin's `--max-semi-space-size=4` (a V8 flag,
      // which wins over a worker's `maxYoungGenerationSizeMb`) the threads have 4 MiB semi-spaces like
      // the main thread. Given 16 MiB ones (the flag cleared after start), a first scan cost ~20 % more
      // CPU and the process 45 MiB more RSS, for ~10 % less on warm scans (BENCHMARKS.md, h-read2).
      workerData: { taskDir: TASK_DIR.href, taskExtension: TASK_EXTENSION, delayBoard: { buffer: delays.buffer, beatMs: BEAT_MS, slotFields: SLOT_FIELDS } } satisfies WorkerEntryData,
    }));

  async function runEnvelope<TOutput, TProgress>(file: string, input: unknown, runOptions: TaskRunOptions<TProgress> = {}): Promise<TOutput> {
    const envelope: TaskEnvelope = { file, input };
    const transferList: import('node:worker_threads').MessagePort[] = [];
    let channel: MessageChannel | undefined;
    if (runOptions.onProgress) {
      channel = new MessageChannel();
      const onProgress = runOptions.onProgress;
      channel.port1.on('message', (message: TProgress) => onProgress(message));
      envelope.progressPort = channel.port2;
      transferList.push(channel.port2);
    }
    if (runOptions.cancel) envelope.cancelFlag = runOptions.cancel.flag;
    try {
      const run = () => threads().run(envelope, { transferList }) as Promise<TOutput>;
      if (runOptions.waitsOnIo || runOptions.waitsOnDevice) return await run();
      // Ordinary tasks now wait here rather than in Piscina's queue: the same bound applies.
      if (slots.waiting >= options.maxQueue) throw new Error('Task queue is at limit');
      return await slots.run(run);
    } finally {
      channel?.port1.close();
    }
  }

  return {
    runInProcess(task, input, runOptions) {
      return runTaskHere(new URL(`${task}${TASK_EXTENSION}`, TASK_DIR).href, input, runOptions);
    },
    run(task, input, runOptions) {
      return runEnvelope(new URL(`${task}${TASK_EXTENSION}`, TASK_DIR).href, input, runOptions);
    },
    runFile(file, input, runOptions) {
      return runEnvelope(taskFileUrl(file), input, runOptions);
    },
    createCancelToken,
    threadLoad: () => delays.sample(),
    status() {
      if (closed) return { ready: false, reason: 'the worker pool is closed' };
      if (!piscina) return { ready: true }; // threads start with the first task
      if (piscina.threads.length === 0) return { ready: false, reason: 'no worker thread is running' };
      if (piscina.queueSize >= options.maxQueue) return { ready: false, reason: `the task queue is full (${piscina.queueSize} tasks waiting)` };
      return { ready: true };
    },
    async close() {
      closed = true;
      delays.close();
      await piscina?.destroy();
    },
  };
}
