import { EventEmitter } from 'node:events';
import type { GatewayEvents } from '../plugin-api.js';
import type { Logger } from '../log/logger.js';

type EventName = keyof GatewayEvents & string;
type Listener<K extends EventName> = (payload: GatewayEvents[K]) => void;

/**
 * The in-process event bus plugins publish to and subscribe on.
 * A throwing listener is logged and never breaks the publisher or other listeners.
 */
export interface EventBus {
  publish<K extends EventName>(event: K, payload: GatewayEvents[K]): void;
  /** Subscribes; returns the function that unsubscribes. */
  subscribe<K extends EventName>(event: K, listener: Listener<K>): () => void;
}

export function createEventBus(logger: Logger): EventBus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    publish(event, payload) {
      for (const listener of emitter.listeners(event)) {
        try {
          (listener as (p: unknown) => void)(payload);
        } catch (err) {
          logger.error('event listener failed', { event, error: err instanceof Error ? err.message : String(err) });
        }
      }
    },
    subscribe(event, listener) {
      emitter.on(event, listener as (p: unknown) => void);
      return () => emitter.off(event, listener as (p: unknown) => void);
    },
  };
}
