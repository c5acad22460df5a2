/**
 * Bus events shared across the cluster: each event of a shared name published on this instance's
 * bus is sent to the others with NOTIFY (in publication order: one at a time), and what the others
 * send is published on this bus, marked remote so that it is not sent back and so that listeners
 * that act once per cluster (a SOAP notification, an audit record) can skip it. Events are of the
 * moment: one sent while an instance is disconnected from the database does not reach it.
 *
 * Events that must not be lost (a revocation: every instance must end what the user held) are
 * shared durably instead: written to the store, so that the change log, which the instances follow
 * without loss across reconnects, brings them to the others; kept a while, then deleted by their
 * instance.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../log/logger.js';
import type { GatewayEvents } from '../plugin-api.js';
import type { KeyValueStore } from '../store/key-value-store.js';

/** NOTIFY payloads are at most 8,000 bytes. */
const MAX_PAYLOAD = 7900;
export const EVENTS_CHANNEL = 'gw_events';

/** How long a durably shared event stays in the store (well past any instance's catching up, short of the change log's retention). */
const DURABLE_KEEP_MS = 10 * 60_000;
const DURABLE_PRUNE_MS = 60_000;

export interface EventRelay {
  share(names: string[]): void;
  /** Shares these events through `store` (the change log): none is lost to an instance that was disconnected meanwhile. */
  shareDurably(names: string[], store: KeyValueStore): void;
  isRemote(payload: object): boolean;
  /** What arrives on the channel. */
  receive(text: string): void;
  close(): void;
}

export function createEventRelay(pool: pg.Pool, origin: string, bus: EventBus, logger: Logger): EventRelay {
  const remote = new WeakSet<object>();
  const shared = new Set<string>();
  let tail: Promise<unknown> = Promise.resolve();
  let warnedTooLarge = false;
  const timers: NodeJS.Timeout[] = [];
  /** Publishes another instance's event here, marked as remote. */
  const deliver = (name: string, payload: object) => {
    remote.add(payload);
    bus.publish(name as keyof GatewayEvents & string, payload as never);
  };
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
    shareDurably(names, store) {
      const durable = new Set(names);
      /** This instance's events in the store (it deletes them in time). */
      const mine = new Set<string>();
      for (const name of durable) {
        // Awaited by publishAwaited: the answer that revoked something waits until the others can learn of it.
        bus.subscribe(name as keyof GatewayEvents & string, async (payload: unknown) => {
          if (typeof payload !== 'object' || payload === null || remote.has(payload)) return;
          const key = `${String(Date.now()).padStart(15, '0')}-${origin}-${randomUUID()}`;
          const write = () => store.put(key, { e: name, p: payload }).then(() => void mine.add(key));
          await write().catch((err: Error) => {
            // The database went away just now: the event is written as soon as it is back (within DURABLE_KEEP_MS).
            logger.warn('an event for the other instances could not be written yet; retrying', { event: name, error: err.message });
            const until = Date.now() + DURABLE_KEEP_MS;
            const retry = setInterval(() => {
              if (Date.now() > until) return void clearInterval(retry);
              write().then(() => clearInterval(retry), () => undefined);
            }, 1000);
            retry.unref();
            timers.push(retry);
          });
        });
      }
      store.onRemoteChange<{ e?: unknown; p?: unknown }>((_key, record) => {
        if (!record || typeof record.e !== 'string' || !durable.has(record.e) || typeof record.p !== 'object' || record.p === null) return;
        deliver(record.e, record.p);
      });
      const stamp = (ms: number) => String(ms).padStart(15, '0');
      const prune = async () => {
        // Its own after DURABLE_KEEP_MS; those of an instance that died before deleting its own, later.
        const old = [...mine].filter((key) => key < stamp(Date.now() - DURABLE_KEEP_MS));
        for await (const page of store.pages({ lt: stamp(Date.now() - 3 * DURABLE_KEEP_MS), size: 1000 })) old.push(...page.map(([key]) => key));
        if (old.length === 0) return;
        await store.batch(old.map((key) => ({ type: 'del' as const, key })));
        for (const key of old) mine.delete(key);
      };
      const pruning = setInterval(() => void prune().catch(() => undefined), DURABLE_PRUNE_MS);
      pruning.unref();
      timers.push(pruning);
    },
    isRemote: (payload) => remote.has(payload),
    close() {
      for (const timer of timers) clearInterval(timer);
    },
    receive(text) {
      let message: { o?: unknown; e?: unknown; p?: unknown };
      try {
        message = JSON.parse(text) as typeof message;
      } catch {
        return;
      }
      if (message.o === origin || typeof message.e !== 'string' || !shared.has(message.e) || typeof message.p !== 'object' || message.p === null) return;
      deliver(message.e, message.p);
    },
  };
}
