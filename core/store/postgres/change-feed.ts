/**
 * How an instance follows the other instances' writes: every write adds rows to `gw_changes`
 * under a change number that commits in order (gw_apply), and NOTIFY on `gw_changes` wakes the
 * followers. NOTIFY alone loses what is sent while a follower is disconnected, so it is only the
 * wake-up: the follower reads the log from the last number it applied, after every notification,
 * after every reconnect and every few seconds anyway. Nothing is lost or reordered across a
 * reconnect; a follower that fell further behind than the log keeps stops loudly (its memory
 * would silently miss writes).
 */
import pg from 'pg';
import type { Logger } from '../../log/logger.js';

/** One change as the log holds it. */
export interface LoggedChange {
  seq: number;
  ns: string;
  key: string;
  /** The JSON text written, or null for a deletion. */
  value: string | null;
  /** The origin id of the process that wrote it. */
  origin: string;
}

export interface ChangeFeedOptions {
  connection: pg.ClientConfig;
  /** This process's origin id: its own changes were applied when written. */
  origin: string;
  /** The change number the caller's reads start from (read before loading anything). */
  from: number;
  /** Reads changes after `seq`, at most `limit`, in order. */
  read(seq: number, limit: number): Promise<LoggedChange[]>;
  /** Applies a foreign change. */
  deliver(change: LoggedChange): void;
  /** The log no longer holds the next change this instance needs. */
  lost(expected: number, found: number): void;
  logger?: Logger;
  pollMs?: number;
  /** Other channels the same connection listens to, with what receives their payloads. */
  channels?: Map<string, (payload: string) => void>;
}

export interface ChangeFeed {
  /** Starts delivering (catching up from `from` first); resolves once caught up. */
  start(): Promise<void>;
  /** Notes a write of this process, committed as change `seq`, so that an older foreign change to the same record is not applied over it. */
  noteOwn(ns: string, key: string, seq: number): void;
  /** The last change number applied. */
  position(): number;
  /** Reads the log now (after a write elsewhere that a caller must see at once). */
  catchUp(): Promise<void>;
  close(): Promise<void>;
}

const PAGE = 1000;
const RECONNECT_MS = [100, 250, 500, 1000, 2000];

export function createChangeFeed(options: ChangeFeedOptions): ChangeFeed {
  let applied = options.from;
  let started = false;
  let closed = false;
  let listener: pg.Client | undefined;
  let reconnects = 0;
  let poll: NodeJS.Timeout | undefined;
  /** Own writes newer than `applied`, by record: a foreign change older than one of them is stale. */
  const own = new Map<string, number>();
  const recordOf = (ns: string, key: string) => `${ns}\u0000${key}`;

  let running: Promise<void> | undefined;
  let again = false;
  const drain = async () => {
    for (;;) {
      const changes = await options.read(applied, PAGE);
      for (const change of changes) {
        if (change.seq !== applied + 1) {
          options.lost(applied + 1, change.seq);
          return;
        }
        applied = change.seq;
        const record = recordOf(change.ns, change.key);
        const mine = own.get(record);
        if (mine !== undefined && mine <= applied) own.delete(record);
        if (mine !== undefined && mine > change.seq) continue;
        // Own changes were applied in memory when written.
        if (change.origin === options.origin) continue;
        options.deliver(change);
      }
      if (changes.length < PAGE) return;
    }
  };
  /** One drain at a time; a wake-up during one runs another after it. */
  const catchUp = (): Promise<void> => {
    if (!started || closed) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await drain();
        } while (again && !closed);
      } catch (err) {
        options.logger?.warn('store change feed: reading the change log failed; retrying', { error: (err as Error).message });
      } finally {
        running = undefined;
      }
    })();
    return running;
  };

  const connect = async (): Promise<void> => {
    if (closed) return;
    const client = new pg.Client(options.connection);
    client.on('error', () => undefined);
    client.on('notification', (message) => {
      if (message.channel === 'gw_changes') void catchUp();
      else options.channels?.get(message.channel)?.(message.payload ?? '');
    });
    client.on('end', () => {
      if (listener === client) listener = undefined;
      if (!closed) scheduleReconnect();
    });
    try {
      await client.connect();
      await client.query('LISTEN gw_changes');
      for (const channel of options.channels?.keys() ?? []) await client.query(`LISTEN "${channel}"`);
    } catch (err) {
      await client.end().catch(() => undefined);
      if (reconnects === 0) options.logger?.warn('store change feed: cannot listen; retrying', { error: (err as Error).message });
      scheduleReconnect();
      return;
    }
    if (closed) {
      await client.end().catch(() => undefined);
      return;
    }
    if (reconnects > 0) options.logger?.info('store change feed: listening again; reading what was missed', { from: applied });
    reconnects = 0;
    listener = client;
    // Whatever was committed while no one listened is in the log.
    await catchUp();
  };
  const scheduleReconnect = () => {
    if (closed) return;
    const delay = RECONNECT_MS[Math.min(reconnects++, RECONNECT_MS.length - 1)]!;
    setTimeout(() => void connect(), delay).unref();
  };

  return {
    async start() {
      started = true;
      await connect();
      await catchUp();
      poll = setInterval(() => void catchUp(), options.pollMs ?? 5000);
      poll.unref();
    },
    noteOwn(ns, key, seq) {
      if (seq > applied) own.set(recordOf(ns, key), Math.max(seq, own.get(recordOf(ns, key)) ?? 0));
    },
    position: () => applied,
    catchUp,
    async close() {
      closed = true;
      if (poll) clearInterval(poll);
      await running?.catch(() => undefined);
      const client = listener;
      listener = undefined;
      await client?.end().catch(() => undefined);
    },
  };
}
