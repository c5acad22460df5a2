/**
 * The heartbeat's own database connection, outside the store's pool. A heartbeat that queued for
 * one of the pool's connections behind a burst of other statements (a scan's writes, tunnels
 * recorded by the thousand) arrived seconds late, and the other instances took this one for down
 * while it was only busy. One connection, opened when first needed and opened again after any
 * failure (a lost connection, a statement that did not answer in time).
 */
import pg from 'pg';

export interface DedicatedConnection {
  query<R extends pg.QueryResultRow>(text: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
  close(): Promise<void>;
}

export function dedicatedConnection(config: pg.ClientConfig): DedicatedConnection {
  let current: Promise<pg.Client> | undefined;
  let closed = false;
  const discard = (opened: Promise<pg.Client>) => {
    if (current !== opened) return;
    current = undefined;
    void opened.then((client) => client.end()).catch(() => undefined);
  };
  const open = (): Promise<pg.Client> => {
    const client = new pg.Client({ ...config, application_name: `${config.application_name ?? 'amt-gateway'} heartbeat` });
    const opened = client.connect().then(() => client);
    // A connection the server or the network closed: the next statement opens another.
    client.on('error', () => discard(opened));
    client.on('end', () => discard(opened));
    opened.catch(() => discard(opened));
    return opened;
  };
  return {
    async query<R extends pg.QueryResultRow>(text: string, params: unknown[] = []) {
      if (closed) throw new Error('the heartbeat connection is closed');
      const opened = (current ??= open());
      try {
        return await (await opened).query<R>(text, params);
      } catch (err) {
        discard(opened);
        throw err;
      }
    },
    async close() {
      closed = true;
      const opened = current;
      current = undefined;
      await opened?.then((client) => client.end()).catch(() => undefined);
    },
  };
}
