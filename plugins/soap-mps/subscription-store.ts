import type { KeyValueStore } from '../../core/plugin-api.js';
import { SoapFault } from './errors.js';

/** A notification subscription: one caller's subscription of one Delivery URI. */
export interface Subscription {
  /** The Delivery URI, normalized (WHATWG URL serialization). */
  delivery: string;
  /** Who owns it (`SoapCaller.key`): `user:<id>`, or `address:<ip>` when the service runs without authentication. */
  subscriber: string;
  createdAt: string;
  expiresAt: string;
}

/**
 * Subscriptions, kept in the plugin's store namespace so that they survive a restart, and mirrored
 * in memory so that delivering a notification never waits for the disk. Each belongs to the caller
 * who made it: at most `maxPerCaller` of one caller (and `maxSubscriptions` in all), removed by that
 * caller, or by one allowed to manage all (`mps:manage`). Two callers subscribing one URI hold a
 * subscription each; the URI is notified once.
 */
export interface SubscriptionStore {
  /** Reads the stored subscriptions; call once before use. `ownerOf` maps the subscriber of a record stored before owners were keyed by id (a user name) to its key, or null when that user is gone. */
  load(ownerOf?: (legacySubscriber: string) => Promise<string | null>): Promise<void>;
  /** Subscribes `delivery` for `subscriber`, or renews its expiry when that subscriber has it already. */
  subscribe(subscriber: string, delivery: string): Promise<Subscription>;
  /** Removes `subscriber`'s subscription of `delivery` (with `null`: every caller's); a fault when there is none. */
  unsubscribe(subscriber: string | null, delivery: string): Promise<void>;
  /** Removes every subscription of `subscriber` (its user was deleted or lost the permission); how many. */
  removeAllOf(subscriber: string): Promise<number>;
  /** The subscriptions that have not expired. */
  live(): Subscription[];
}

export interface SubscriptionStoreOptions {
  ttlSeconds: number;
  maxSubscriptions: number;
  maxPerCaller: number;
  now?: () => number;
}

const KEY_PREFIX = 'subscription:';
const MAX_URI_LENGTH = 2048;

/** Checks that `uri` is an absolute http(s) URI without credentials; returns its normalized form. */
export function normalizeDelivery(uri: string): string {
  const refuse = (why: string) => new SoapFault('GW_ERR_SOAP_INVALID_DELIVERY', `Delivery ${why}`);
  if (uri.length > MAX_URI_LENGTH) throw refuse(`must not be longer than ${MAX_URI_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw refuse('must be an absolute http or https URI');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('must be an absolute http or https URI');
  if (url.username || url.password) throw refuse('must not carry user credentials');
  return url.href;
}

/** The store key of a subscription: the owner escaped (no `:` inside), then the URI. */
const keyOf = (subscriber: string, delivery: string) => `${KEY_PREFIX}${encodeURIComponent(subscriber)}:${delivery}`;

export function createSubscriptionStore(store: KeyValueStore, options: SubscriptionStoreOptions): SubscriptionStore {
  const now = options.now ?? Date.now;
  const byKey = new Map<string, Subscription>();
  let tail: Promise<unknown> = Promise.resolve();
  // Writes run one at a time so that the counts checked against the bounds stay true.
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const run = tail.then(work, work);
    tail = run.catch(() => undefined);
    return run;
  };
  const expired = (s: Subscription) => Date.parse(s.expiresAt) <= now();
  const removeWhere = async (doomed: (s: Subscription) => boolean): Promise<number> => {
    const keys = [...byKey].filter(([, s]) => doomed(s)).map(([key]) => key);
    if (keys.length > 0) await store.batch(keys.map((key) => ({ type: 'del' as const, key })));
    for (const key of keys) byKey.delete(key);
    return keys.length;
  };

  return {
    async load(ownerOf) {
      for await (const [key, value] of store.entries<Subscription>({ prefix: KEY_PREFIX })) {
        if (expired(value)) {
          await store.del(key);
          continue;
        }
        if (key === keyOf(value.subscriber, value.delivery)) {
          byKey.set(key, value);
          continue;
        }
        // Stored before subscriptions were keyed by owner: one per URI, its subscriber a user name.
        const owner = value.subscriber.startsWith('address:') ? value.subscriber : ((await ownerOf?.(value.subscriber)) ?? null);
        const migrated = owner === null ? null : { ...value, subscriber: owner };
        await store.batch([{ type: 'del', key }, ...(migrated ? [{ type: 'put' as const, key: keyOf(migrated.subscriber, migrated.delivery), value: migrated }] : [])]);
        if (migrated) byKey.set(keyOf(migrated.subscriber, migrated.delivery), migrated);
      }
    },
    subscribe(subscriber, delivery) {
      const uri = normalizeDelivery(delivery);
      return serial(async () => {
        await removeWhere(expired);
        const key = keyOf(subscriber, uri);
        const existing = byKey.get(key);
        if (!existing && byKey.size >= options.maxSubscriptions) {
          throw new SoapFault('GW_ERR_SOAP_TOO_MANY_SUBSCRIPTIONS', `too many subscriptions (at most ${options.maxSubscriptions})`);
        }
        if (!existing && [...byKey.values()].filter((s) => s.subscriber === subscriber).length >= options.maxPerCaller) {
          throw new SoapFault('GW_ERR_SOAP_TOO_MANY_CALLER_SUBSCRIPTIONS', `you hold ${options.maxPerCaller} subscriptions, the most one caller may; unsubscribe one first`);
        }
        const t = now();
        const subscription: Subscription = {
          delivery: uri,
          subscriber,
          createdAt: existing?.createdAt ?? new Date(t).toISOString(),
          expiresAt: new Date(t + options.ttlSeconds * 1000).toISOString(),
        };
        await store.put(key, subscription);
        byKey.set(key, subscription);
        return subscription;
      });
    },
    unsubscribe(subscriber, delivery) {
      const uri = normalizeDelivery(delivery);
      return serial(async () => {
        // The same fault whether the URI is unknown or another caller's: nothing to learn about others.
        const removed = await removeWhere((s) => s.delivery === uri && !expired(s) && (subscriber === null || s.subscriber === subscriber));
        if (removed === 0) throw new SoapFault('GW_ERR_SOAP_UNKNOWN_SUBSCRIPTION', 'no subscription exists for this Delivery URI');
      });
    },
    removeAllOf(subscriber) {
      return serial(() => removeWhere((s) => s.subscriber === subscriber));
    },
    live() {
      return [...byKey.values()].filter((s) => !expired(s));
    },
  };
}
