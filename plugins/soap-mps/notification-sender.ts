import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent, buildConnector as BuildConnector } from 'undici';
import type { Logger } from '../../core/plugin-api.js';
import { DeliveryRefused, type DeliveryPolicy } from './delivery-policy.js';
import { XML_CONTENT_TYPE } from './soap-envelope.js';

/** One notification to deliver. */
export interface Notification {
  body: string;
  soapAction: string;
}

/**
 * Delivers notifications to subscribers asynchronously. Each receiver has its own queue, worked
 * one notification at a time (so a receiver sees connects and disconnects in order), with retries,
 * backoff and a timeout per attempt; a slow or dead receiver only delays and drops its own
 * notifications, never another receiver's, and `send` never waits. Every connection goes to an
 * address the delivery policy allows, checked when it connects (a refused address is not retried;
 * a name that does not resolve is, like any connection failure).
 */
export interface NotificationSender {
  /** Queues `notification` for each receiver and returns at once. */
  send(receivers: string[], notification: Notification): void;
  /** Notifications queued or in flight, over all receivers. */
  pending(): number;
  /** Stops: abandons queued notifications, aborts posts and backoff waits in progress. */
  close(): Promise<void>;
}

export interface NotificationSenderOptions {
  timeoutMs: number;
  maxAttempts: number;
  backoffMs: number;
  /** Notifications queued per receiver at most; the oldest queued one is dropped beyond. */
  maxPending: number;
  /** Where deliveries may connect. */
  policy: DeliveryPolicy;
  logger: Logger;
}

const MAX_BACKOFF_MS = 5 * 60_000;

/** An attempt's outcome: delivered, failed (retried), or refused by the delivery policy (an address it refuses is not retried). */
type Outcome = { ok: true } | { ok: false; error: string; final: boolean };

function refusedBy(err: unknown): DeliveryRefused | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) if (e instanceof DeliveryRefused) return e;
  return undefined;
}

interface Receiver {
  queue: Notification[];
  inFlight: boolean;
  done: Promise<void>;
}

/** A receiver for log lines: scheme, host and port only (a path or query may carry a token). */
function origin(uri: string): string {
  try {
    return new URL(uri).origin;
  } catch {
    return '(invalid URI)';
  }
}

export function createNotificationSender(options: NotificationSenderOptions): NotificationSender {
  const { logger, policy } = options;
  // undici is imported with the first notification: a gateway without SOAP subscribers never needs it.
  // Every new connection resolves its host through the policy, with its port (the gateway's own
  // listeners are refused by address and port), and connects to the very address that passed: no
  // second resolution a changed DNS answer could slip through. TLS still verifies the name.
  let client: Promise<{ agent: Agent; request: typeof import('undici').request }> | undefined;
  const connect = () =>
    (client ??= import('undici').then(({ Agent, buildConnector, request }) => {
      const direct = buildConnector({ timeout: options.timeoutMs });
      const checked: BuildConnector.connector = (target, callback) => {
        const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
        policy.addresses(target.hostname, port).then(
          ([first]) => direct({ ...target, hostname: first!.address }, callback),
          (err: Error) => callback(err, null),
        );
      };
      return { agent: new Agent({ connect: checked, headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs, keepAliveTimeout: 10_000 }), request };
    }));
  const stop = new AbortController();
  const receivers = new Map<string, Receiver>();

  const post = async (uri: string, notification: Notification): Promise<Outcome> => {
    try {
      const { agent, request } = await connect();
      const res = await request(uri, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': XML_CONTENT_TYPE, soapaction: `"${notification.soapAction}"` },
        body: notification.body,
        signal: AbortSignal.any([stop.signal, AbortSignal.timeout(options.timeoutMs)]),
      });
      await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      return res.statusCode >= 200 && res.statusCode < 300 ? { ok: true } : { ok: false, error: `HTTP ${res.statusCode}`, final: false };
    } catch (err) {
      const refused = refusedBy(err);
      if (refused) return { ok: false, error: refused.message, final: !refused.unresolved };
      const error = (err as Error).name === 'AbortError' || (err as Error).name === 'TimeoutError' ? 'timed out' : ((err as { code?: string }).code ?? (err as Error).message);
      return { ok: false, error, final: false };
    }
  };

  const deliver = async (uri: string, notification: Notification) => {
    let failure = 'not attempted';
    for (let attempt = 1; attempt <= options.maxAttempts && !stop.signal.aborted; attempt++) {
      const outcome = await post(uri, notification);
      if (outcome.ok) return;
      failure = outcome.error;
      if (outcome.final) {
        logger.warn('notification not sent: the receiver is not allowed', { receiver: origin(uri), reason: failure });
        return;
      }
      if (attempt < options.maxAttempts) {
        const wait = Math.min(MAX_BACKOFF_MS, options.backoffMs * 2 ** (attempt - 1)) * (1 + Math.random() * 0.2);
        logger.debug('notification delivery failed, retrying', { receiver: origin(uri), attempt, error: failure, retryInMs: Math.round(wait) });
        await sleep(wait, undefined, { signal: stop.signal }).catch(() => undefined);
      }
    }
    if (!stop.signal.aborted) logger.warn('notification dropped after failed deliveries', { receiver: origin(uri), attempts: options.maxAttempts, error: failure });
  };

  const work = async (uri: string, receiver: Receiver) => {
    while (!stop.signal.aborted && receiver.queue.length > 0) {
      const notification = receiver.queue.shift()!;
      receiver.inFlight = true;
      await deliver(uri, notification);
      receiver.inFlight = false;
    }
    receivers.delete(uri);
  };

  return {
    send(uris, notification) {
      if (stop.signal.aborted) return;
      for (const uri of uris) {
        let receiver = receivers.get(uri);
        const fresh = !receiver;
        receiver ??= { queue: [], inFlight: false, done: Promise.resolve() };
        if (receiver.queue.length >= options.maxPending) {
          receiver.queue.shift();
          logger.warn('notification queue full, oldest notification dropped', { receiver: origin(uri), maxPending: options.maxPending });
        }
        receiver.queue.push(notification);
        if (fresh) {
          receivers.set(uri, receiver);
          receiver.done = work(uri, receiver);
        }
      }
    },
    pending() {
      let count = 0;
      for (const r of receivers.values()) count += r.queue.length + (r.inFlight ? 1 : 0);
      return count;
    },
    async close() {
      stop.abort();
      await Promise.allSettled([...receivers.values()].map((r) => r.done));
      if (client) await (await client).agent.destroy().catch(() => undefined);
    },
  };
}
