/**
 * Bus events shared across the cluster: each event of a shared name published on this instance's
 * bus is sent to the others with NOTIFY (in publication order: one at a time), and what the others
 * send is published on this bus, marked remote so that it is not sent back and so that listeners
 * that act once per cluster (a SOAP notification, an audit record) can skip it. Events are of the
 * moment: one sent while an instance is disconnected from the database does not reach it.
 */
import type pg from 'pg';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../log/logger.js';
import type { GatewayEvents } from '../plugin-api.js';

/** NOTIFY payloads are at most 8,000 bytes. */
const MAX_PAYLOAD = 7900;
export const EVENTS_CHANNEL = 'gw_events';

export interface EventRelay {
  share(names: string[]): void;
  isRemote(payload: object): boolean;
  /** What arrives on the channel. */
  receive(text: string): void;
}

export function createEventRelay(pool: pg.Pool, origin: string, bus: EventBus, logger: Logger): EventRelay {
  const remote = new WeakSet<object>();
  const shared = new Set<string>();
  let tail: Promise<unknown> = Promise.resolve();
  let warnedTooLarge = false;
  const send = (text: string) => {
    tail = tail.then(() => pool.query('SELECT pg_notify($1, $2)', [EVENTS_CHANNEL, text])).catch((err: Error) => logger.debug('an event was not shared with the cluster', { error: err.message }));
  };
  return {
    share(names) {
      for (const name of names) {
        if (shared.has(name)) continue;
        shared.add(name);
        bus.subscribe(name as keyof GatewayEvents & string, (payload: unknown) => {
          if (typeof payload !== 'object' || payload === null || remote.has(payload)) return;
          const text = JSON.stringify({ o: origin, e: name, p: payload });
          if (Buffer.byteLength(text) > MAX_PAYLOAD) {
            if (!warnedTooLarge) logger.warn('an event too large to share with the cluster was kept on this instance', { event: name });
            warnedTooLarge = true;
            return;
          }
          send(text);
        });
      }
    },
    isRemote: (payload) => remote.has(payload),
    receive(text) {
      let message: { o?: unknown; e?: unknown; p?: unknown };
      try {
        message = JSON.parse(text) as typeof message;
      } catch {
        return;
      }
      if (message.o === origin || typeof message.e !== 'string' || !shared.has(message.e) || typeof message.p !== 'object' || message.p === null) return;
      remote.add(message.p);
      bus.publish(message.e as keyof GatewayEvents & string, message.p as never);
    },
  };
}
