// Entry of every worker thread: loads TypeScript task files through tsx and runs one task.
// Plain JS because it is what loads the TypeScript hooks in the thread.
import { setMaxListeners } from 'node:events';
import { readdirSync } from 'node:fs';
import { register } from 'tsx/esm/api';

register();

const CANCEL_POLL_MS = 50;
// import() of a cached module still runs tsx's resolve hook (~0.2 ms); tasks are few, keep them.
const taskModules = new Map();
const loadTask = (file) => {
  let module = taskModules.get(file);
  if (!module) {
    module = import(file);
    taskModules.set(file, module);
    module.catch(() => taskModules.delete(file));
  }
  return module;
};

// The built-in tasks (and undici, fast-xml-parser behind them) are loaded once the thread has
// started, one after the other, so that the first scan does not wait for the module loader.
const BUILT_IN_TASKS = new URL('./tasks/', import.meta.url);
const PRELOAD_DELAY_MS = 500;
setTimeout(async () => {
  for (const name of readdirSync(BUILT_IN_TASKS).sort()) {
    if (name.endsWith('.ts') && !name.endsWith('-types.ts')) await loadTask(new URL(name, BUILT_IN_TASKS).href).catch(() => undefined);
  }
}, PRELOAD_DELAY_MS).unref();

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
