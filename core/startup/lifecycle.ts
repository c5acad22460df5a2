/**
 * What runs across the phases and at shutdown: the listeners with their owners, the plugins'
 * ready, stopping and close hooks, and whether the gateway is serving.
 */
import type { Listener } from '../http/listener.js';
import type { Logger } from '../log/logger.js';
import type { KernelParts } from '../plugins/plugin-context.js';

type Hooks = KernelParts['closeHooks'];

export interface Lifecycle {
  readonly readyHooks: KernelParts['readyHooks'];
  readonly stoppingHooks: Hooks;
  readonly closeHooks: Hooks;
  /** Every listener with its owner, the main one (`core`) first once it listens. */
  readonly owners: ReadonlyArray<{ plugin: string; url: string }>;
  /** True from the end of `listen` until shutdown starts. */
  serving(): boolean;
  /** Records a listener a plugin (or, with `main`, the kernel) opened. */
  addListener(plugin: string, listener: Listener, main?: boolean): void;
  /** Runs the ready hooks and marks the gateway serving. */
  markServing(): Promise<void>;
  /** Stopping hooks, listeners drained and closed, close hooks in reverse registration order. */
  stop(drainTimeoutMs: number): Promise<void>;
}

export function createLifecycle(logger: Logger): Lifecycle {
  const listeners: Listener[] = [];
  const owners: Array<{ plugin: string; url: string }> = [];
  const readyHooks: Lifecycle['readyHooks'] = [];
  const stoppingHooks: Hooks = [];
  const closeHooks: Hooks = [];
  let serving = false;
  const runHooks = async (hooks: Hooks, what: string) => {
    for (const { plugin, hook } of [...hooks].reverse()) {
      try {
        await hook();
      } catch (err) {
        logger.error(`plugin ${what} failed`, { plugin, error: (err as Error).message });
      }
    }
  };
  return {
    readyHooks,
    stoppingHooks,
    closeHooks,
    owners,
    serving: () => serving,
    addListener(plugin, listener, main = false) {
      if (main) {
        listeners.unshift(listener);
        owners.unshift({ plugin, url: listener.url });
      } else {
        listeners.push(listener);
        owners.push({ plugin, url: listener.url });
      }
    },
    async markServing() {
      for (const hook of readyHooks) await hook();
      serving = true;
    },
    async stop(drainTimeoutMs) {
      serving = false;
      await runHooks(stoppingHooks, 'stopping hook');
      await Promise.allSettled(listeners.map((l) => l.close(drainTimeoutMs)));
      await runHooks(closeHooks, 'teardown');
    },
  };
}
