// Entry of every worker thread: loads a task module and runs one task. Plain JS, so that the same
// file runs compiled tasks (dist/, no loader hooks) and, in the checkout, TypeScript ones: only a
// `.ts` task file makes the thread register tsx, a dev dependency a production install lacks.
import { setMaxListeners } from 'node:events';
import { readdirSync } from 'node:fs';
import { workerData } from 'piscina';

const CANCEL_POLL_MS = 50;
const TYPESCRIPT = /\.[cm]?tsx?$/;
let typescriptHooks;
const loaderFor = (file) => {
  if (!TYPESCRIPT.test(new URL(file).pathname)) return undefined;
  typescriptHooks ??= import('tsx/esm/api').then((tsx) => {
    tsx.register();
  });
  return typescriptHooks;
};
// import() of a cached module still runs the loader's resolve hook; tasks are few, keep them.
const taskModules = new Map();
const loadTask = (file) => {
  let module = taskModules.get(file);
  if (!module) {
    module = (loaderFor(file) ?? Promise.resolve()).then(() => import(file));
    taskModules.set(file, module);
    module.catch(() => taskModules.delete(file));
  }
  return module;
};

// The built-in tasks (and undici, fast-xml-parser behind them) are loaded once the thread has
// started, one after the other, so that the first scan does not wait for the module loader.
const PRELOAD_DELAY_MS = 500;
const { taskDir, taskExtension } = workerData ?? {};
if (taskDir && taskExtension) {
  const isTask = (name) => name.endsWith(taskExtension) && !name.endsWith(`-types${taskExtension}`) && !name.endsWith(`.d${taskExtension}`);
  setTimeout(async () => {
    for (const name of readdirSync(new URL(taskDir)).filter(isTask).sort()) await loadTask(new URL(name, taskDir).href).catch(() => undefined);
  }, PRELOAD_DELAY_MS).unref();
}

// The thread's event-loop delay while it runs tasks, for the device gate's admission of reads
// (core/pool/thread-delay.ts reads it): a beat that comes late means ready callbacks waited that long.
const { delayBoard } = workerData ?? {};
const { beatMs: BEAT_MS, slotFields: SLOT_FIELDS } = delayBoard ?? {};
const board = delayBoard ? new Int32Array(delayBoard.buffer) : undefined;
const slotAt = board ? 1 + (Atomics.add(board, 0, 1) % ((board.length - 1) / SLOT_FIELDS)) * SLOT_FIELDS : 0;
let running = 0;
let lastBeat = 0;
let beat;
const beatOnce = () => {
  const now = performance.now();
  const late = Math.round(now - lastBeat - BEAT_MS);
  lastBeat = now;
  if (late > Atomics.load(board, slotAt)) Atomics.store(board, slotAt, late);
  Atomics.add(board, slotAt + 1, 1);
};
const taskStarted = () => {
  // The thread beats only while it runs tasks: an idle spell is idleness, not delay, and costs no wake-ups.
  if (running++ === 0 && board) {
    lastBeat = performance.now();
    beat = setInterval(beatOnce, BEAT_MS);
    beat.unref();
  }
  if (board) Atomics.store(board, slotAt + 2, running);
};
const taskEnded = () => {
  if (--running === 0) clearInterval(beat);
  if (board) Atomics.store(board, slotAt + 2, running);
};

// One poll per thread for every running task's cancel flag, instead of a timer per task: a thread
// holding a thousand device reads ran 20,000 poll callbacks a second for them.
const watched = new Set();
let cancelPoll;
const pollCancels = () => {
  for (const watch of watched) {
    if (Atomics.load(watch.flag, 0) !== 0) {
      watched.delete(watch);
      watch.controller.abort(new Error('task cancelled'));
    }
  }
  if (watched.size === 0) {
    clearInterval(cancelPoll);
    cancelPoll = undefined;
  }
};
const watchCancel = (watch) => {
  watched.add(watch);
  if (!cancelPoll) {
    cancelPoll = setInterval(pollCancels, CANCEL_POLL_MS);
    cancelPoll.unref();
  }
};

export default async function runTask(envelope) {
  const { file, input, progressPort, cancelFlag } = envelope;
  taskStarted();
  const controller = new AbortController();
  // A task passes its signal to every socket it opens; hundreds of listeners are expected.
  setMaxListeners(0, controller.signal);
  const cancelled = () => (cancelFlag ? Atomics.load(cancelFlag, 0) !== 0 : false);
  const watch = cancelFlag ? { flag: cancelFlag, controller } : undefined;
  if (watch) watchCancel(watch);
  try {
    const module = await loadTask(file);
    const tools = {
      progress: (message) => progressPort?.postMessage(message),
      cancelled,
      signal: controller.signal,
    };
    if (cancelled()) controller.abort(new Error('task cancelled'));
    return await module.default(input, tools);
  } finally {
    taskEnded();
    if (watch) watched.delete(watch);
    progressPort?.close();
  }
}
