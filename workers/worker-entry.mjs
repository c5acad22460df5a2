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

export default async function runTask(envelope) {
  const { file, input, progressPort, cancelFlag } = envelope;
  const controller = new AbortController();
  // A task passes its signal to every socket it opens; hundreds of listeners are expected.
  setMaxListeners(0, controller.signal);
  const cancelled = () => (cancelFlag ? Atomics.load(cancelFlag, 0) !== 0 : false);
  const poll = cancelFlag
    ? setInterval(() => {
        if (cancelled()) controller.abort(new Error('task cancelled'));
      }, CANCEL_POLL_MS)
    : undefined;
  poll?.unref();
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
    if (poll) clearInterval(poll);
    progressPort?.close();
  }
}
