import type { KeyValueStore } from '../../core/plugin-api.js';
import { SoapFault } from './errors.js';

/** A notification subscription, identified by its Delivery URI. */
export interface Subscription {
  /** The Delivery URI, normalized (WHATWG URL serialization). */
  delivery: string;
  /** Who subscribed: a username, or `address:<ip>` when the service runs without authentication. */
  subscriber: string;
  createdAt: string;
  expiresAt: string;
}

/**
 * Subscriptions, kept in the plugin's store namespace so that they survive a restart, and mirrored
 * in memory so that delivering a notification never waits for the disk.
 */
export interface SubscriptionStore {
  /** Reads the stored subscriptions; call once before use. */
  load(): Promise<void>;
  /** Subscribes `delivery`, or renews its expiry when it is subscribed already. */
  subscribe(subscriber: string, delivery: string): Promise<Subscription>;
  /** Removes the subscription of `delivery`; a fault when there is none. */
  unsubscribe(delivery: string): Promise<void>;
  /** The subscriptions that have not expired. */
  live(): Subscription[];
}

export interface SubscriptionStoreOptions {
  ttlSeconds: number;
  maxSubscriptions: number;
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

export function createSubscriptionStore(store: KeyValueStore, options: SubscriptionStoreOptions): SubscriptionStore {
  const now = options.now ?? Date.now;
  const byDelivery = new Map<string, Subscription>();
  let tail: Promise<unknown> = Promise.resolve();
  // Writes run one at a time so that the count checked against maxSubscriptions stays true.
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const run = tail.then(work, work);
    tail = run.catch(() => undefined);
    return run;
  };
  const expired = (s: Subscription) => Date.parse(s.expiresAt) <= now();
  // A subscription made or removed through another instance of a cluster: notifications follow it.
  store.onRemoteChange<Subscription>((key, value) => {
    if (!key.startsWith(KEY_PREFIX)) return;
    if (value) byDelivery.set(value.delivery, value);
    else byDelivery.delete(key.slice(KEY_PREFIX.length));
  });

  return {
    async load() {
      for await (const [key, value] of store.entries<Subscription>({ prefix: KEY_PREFIX })) {
        if (expired(value)) await store.del(key);
        else byDelivery.set(value.delivery, value);
      }
    },
    subscribe(subscriber, delivery) {
      const uri = normalizeDelivery(delivery);
      return serial(async () => {
        const stale = [...byDelivery.values()].filter(expired);
        if (stale.length > 0) {
          await store.batch(stale.map((s) => ({ type: 'del' as const, key: KEY_PREFIX + s.delivery })));
          for (const s of stale) byDelivery.delete(s.delivery);
        }
        const existing = byDelivery.get(uri);
        if (!existing && byDelivery.size >= options.maxSubscriptions) {
          throw new SoapFault('GW_ERR_SOAP_TOO_MANY_SUBSCRIPTIONS', `too many subscriptions (at most ${options.maxSubscriptions})`);
        }
        const t = now();
        const subscription: Subscription = {
          delivery: uri,
          subscriber,
          createdAt: existing?.createdAt ?? new Date(t).toISOString(),
          expiresAt: new Date(t + options.ttlSeconds * 1000).toISOString(),
        };
        await store.put(KEY_PREFIX + uri, subscription);
        byDelivery.set(uri, subscription);
        return subscription;
      });
    },
    unsubscribe(delivery) {
      const uri = normalizeDelivery(delivery);
      return serial(async () => {
        const existing = byDelivery.get(uri);
        if (!existing || expired(existing)) throw new SoapFault('GW_ERR_SOAP_UNKNOWN_SUBSCRIPTION', 'no subscription exists for this Delivery URI');
        await store.del(KEY_PREFIX + uri);
        byDelivery.delete(uri);
      });
    },
    live() {
      return [...byDelivery.values()].filter((s) => !expired(s));
    },
  };
}
