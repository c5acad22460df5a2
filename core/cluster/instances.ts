/**
 * This instance's row in `gw_instances` and its heartbeat: written every `heartbeatSeconds`, with
 * the number of CIRA tunnels it holds. Each heartbeat also reads every instance's row, so that
 * `isUp` answers from memory; an instance whose heartbeat is older than `downAfterSeconds` (or that
 * stopped) is down, and the listeners hear of it once. The heartbeat has a connection of its own:
 * queued behind the pool's other statements it could arrive late, and this instance be taken for
 * down while only busy.
 */
import type pg from 'pg';
import type { Logger } from '../log/logger.js';
import type { ClusterInstance } from './cluster-api.js';
import { dedicatedConnection } from './heartbeat-connection.js';

export interface InstanceRegistry {
  list(): Promise<ClusterInstance[]>;
  isUp(id: string): boolean;
  /** The ids of the instances up at the last heartbeat, sorted. */
  upIds(): string[];
  onDown(listener: (id: string) => void): void;
  setUrl(url: string): Promise<void>;
  reportTunnels(count: () => number): void;
  /** Marks this instance stopped (the others see it down at once). */
  close(): Promise<void>;
}

interface Row {
  id: string;
  name: string;
  url: string | null;
  started_at: Date;
  last_seen_at: Date;
  stopped_at: Date | null;
  cira_tunnels: number;
  up: boolean;
}

/** Rows of instances down for longer than this are deleted. */
const FORGET_AFTER = '7 days';

export async function registerInstance(options: {
  pool: pg.Pool;
  /** How the heartbeat opens its own connection (the pool's settings). */
  connection: pg.ClientConfig;
  id: string;
  name: string;
  heartbeatSeconds: number;
  downAfterSeconds: number;
  logger: Logger;
}): Promise<InstanceRegistry> {
  const { pool, id, name, downAfterSeconds } = options;
  let tunnels: () => number = () => 0;
  const downListeners: Array<(id: string) => void> = [];
  let up = new Set<string>([id]);
  let upSorted = [id];
  const known = new Set<string>();
  const select = `SELECT id, name, url, started_at, last_seen_at, stopped_at, cira_tunnels,
      (stopped_at IS NULL AND last_seen_at > now() - make_interval(secs => $1)) AS up
    FROM gw_instances WHERE stopped_at IS NULL OR stopped_at > now() - interval '1 day' ORDER BY name, started_at`;
  const view = (r: Row): ClusterInstance => ({
    id: r.id,
    name: r.name,
    url: r.url,
    startedAt: r.started_at.toISOString(),
    lastSeenAt: r.last_seen_at.toISOString(),
    state: r.up ? 'up' : 'down',
    ciraTunnels: r.cira_tunnels,
  });
  const refresh = (rows: Row[]) => {
    const next = new Set(rows.filter((r) => r.up).map((r) => r.id));
    next.add(id);
    for (const r of rows) {
      // Down now, and seen up by this instance before (or never seen): say so once.
      if (!next.has(r.id) && (up.has(r.id) || !known.has(r.id))) for (const listener of downListeners) listener(r.id);
      known.add(r.id);
    }
    up = next;
    upSorted = [...next].sort();
  };
  await pool.query('INSERT INTO gw_instances (id, name, started_at, last_seen_at) VALUES ($1, $2, now(), now())', [id, name]);
  await pool.query(`DELETE FROM gw_instances WHERE last_seen_at < now() - interval '${FORGET_AFTER}'`);
  // A statement that does not answer before this instance would count as down is given up and its connection opened again.
  const heartbeat = dedicatedConnection({ ...options.connection, query_timeout: downAfterSeconds * 1000 });
  let beating = false;
  const beat = async () => {
    if (beating) return;
    beating = true;
    try {
      await heartbeat.query('UPDATE gw_instances SET last_seen_at = now(), cira_tunnels = $2 WHERE id = $1', [id, tunnels()]);
      refresh((await heartbeat.query<Row>(select, [downAfterSeconds])).rows);
    } catch (err) {
      options.logger.warn('cluster heartbeat failed', { error: (err as Error).message });
    } finally {
      beating = false;
    }
  };
  const timer = setInterval(() => void beat(), options.heartbeatSeconds * 1000);
  timer.unref();
  await beat();
  return {
    async list() {
      await beat();
      return (await pool.query<Row>(select, [downAfterSeconds])).rows.map(view);
    },
    isUp: (other) => up.has(other),
    upIds: () => upSorted,
    onDown(listener) {
      downListeners.push(listener);
    },
    async setUrl(url) {
      await pool.query('UPDATE gw_instances SET url = $2 WHERE id = $1', [id, url]);
    },
    reportTunnels(count) {
      tunnels = count;
    },
    async close() {
      clearInterval(timer);
      await heartbeat.close();
      await pool.query('UPDATE gw_instances SET stopped_at = now(), cira_tunnels = 0 WHERE id = $1', [id]).catch(() => undefined);
    },
  };
}
