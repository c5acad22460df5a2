import { EventEmitter } from 'node:events';
import type { GatewayEvents } from '../plugin-api.js';
import type { Logger } from '../log/logger.js';

type EventName = keyof GatewayEvents & string;
// `unknown`, not `void | Promise<void>`: listeners written as expressions (`(e) => list.push(e)`) stay valid.
type Listener<K extends EventName> = (payload: GatewayEvents[K]) => unknown;

/**
 * The in-process event bus plugins publish to and subscribe on.
 * A throwing listener is logged and never breaks the publisher or other listeners.
 */
export interface EventBus {
  publish<K extends EventName>(event: K, payload: GatewayEvents[K]): void;
  /**
   * Publishes and waits for the listeners that return a promise (a durable write, e.g. the audit
   * trail's): for events whose listeners must be done before the publisher answers. A listener that
   * rejects is logged, as a throwing one is; the publisher still goes on.
   */
  publishAwaited<K extends EventName>(event: K, payload: GatewayEvents[K]): Promise<void>;
  /** Subscribes; returns the function that unsubscribes. */
  subscribe<K extends EventName>(event: K, listener: Listener<K>): () => void;
}

export function createEventBus(logger: Logger): EventBus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const failed = (event: string, err: unknown) => logger.error('event listener failed', { event, error: err instanceof Error ? err.message : String(err) });
  const deliver = (event: string, payload: unknown): Array<Promise<void>> => {
    const pending: Array<Promise<void>> = [];
    for (const listener of emitter.listeners(event)) {
      try {
        const result = (listener as (p: unknown) => unknown)(payload);
        if (result instanceof Promise) pending.push(result.catch((err: unknown) => failed(event, err)));
      } catch (err) {
        failed(event, err);
      }
    }
    return pending;
  };
  return {
    publish(event, payload) {
      deliver(event, payload);
    },
    async publishAwaited(event, payload) {
      const pending = deliver(event, payload);
      if (pending.length > 0) await Promise.all(pending);
    },
    subscribe(event, listener) {
      emitter.on(event, listener as (p: unknown) => void);
      return () => emitter.off(event, listener as (p: unknown) => void);
    },
  };
}
