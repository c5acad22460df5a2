/** Several gateway processes on one real PostgreSQL, for the cluster suite and the cluster benchmark. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnGateway, type GatewayProcess } from '../helpers/gateway-process.js';
import { ADMIN_PASSWORD } from '../helpers/gateway-harness.js';
import { mergeConfig } from '../../core/config/load-config.js';
import { until } from '../helpers/poll.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';

export interface ClusterInstanceProcess {
  name: string;
  url: string;
  process: GatewayProcess;
  dataDir: string;
}

export interface ClusterOptions {
  /** The store's URL (one database for every instance). */
  storeUrl: string;
  /** Merged into every instance's configuration, key by key. */
  config?: Record<string, unknown>;
  env?: Record<string, string>;
  /**
   * How late a heartbeat (every second) may be before the others take an instance for down: 3 s by
   * default, for the suites that test failover. A suite that does not test it chooses more: on a
   * loaded machine a heartbeat can be late, and in the moments between an instance being taken for
   * down and recording its tunnels again an operation on its devices fails with 503.
   */
  downAfterSeconds?: number;
}

/** A master key shared by every instance of one cluster (as an operator distributes it). */
export const clusterMasterKey = (): string => randomBytes(32).toString('base64');

/** A PostgreSQL server with an empty database for one cluster, and the master key its instances share. */
export async function clusterStore(): Promise<{ server: PostgresServer; storeUrl: string; masterKey: string }> {
  const server = await startPostgres();
  return { server, storeUrl: await server.createDatabase(), masterKey: clusterMasterKey() };
}

/** Starts one instance named `name`; resolves once it serves. */
export async function startInstance(name: string, options: ClusterOptions & { masterKey: string }): Promise<ClusterInstanceProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), `amtgw-${name}-`));
  // Merged key by key: a suite's `plugins` adds to these rather than replacing them.
  const config = mergeConfig(
    {
      store: { driver: 'postgres', url: options.storeUrl },
      cluster: { instanceName: name, heartbeatSeconds: 1, downAfterSeconds: options.downAfterSeconds ?? 3 },
      plugins: { 'soap-mps': { enable: false }, 'remote-monitor': { enable: false } },
    },
    options.config ?? {},
  );
  const child = await spawnGateway(dataDir, config, { AMTGW_MASTER_KEY: options.masterKey, ...options.env });
  try {
    const url = await child.serving;
    return { name, url, process: child, dataDir };
  } catch (err) {
    child.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/** Stops an instance: SIGKILL (a crash) or SIGTERM (a stop), and removes its folder. */
export async function stopInstance(instance: ClusterInstanceProcess, signal: 'SIGKILL' | 'SIGTERM' = 'SIGTERM'): Promise<void> {
  if (instance.process.child.exitCode === null && instance.process.child.signalCode === null) {
    instance.process.child.kill(signal);
    await instance.process.exited;
  }
  rmSync(instance.dataDir, { recursive: true, force: true });
}

/** Signs in as the bootstrap admin; the bearer token. */
export async function adminToken(url: string): Promise<string> {
  const res = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }) });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

/** A JSON call with a bearer token; the status and the parsed body. */
export async function call<T = unknown>(url: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T; headers: Headers }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T, headers: res.headers };
}

/** The CIRA listener's port of an instance, from its log. */
export function ciraPortOf(instance: ClusterInstanceProcess): number {
  const match = /"msg":"cira server listening"[^\n]*"port":(\d+)/.exec(instance.process.output());
  if (!match) throw new Error(`${instance.name} did not report its CIRA port`);
  return Number(match[1]);
}

/**
 * Waits until every one of `instances` knows the MPS account `username` made through another: the
 * store's change reaches them within moments, later on a loaded machine, and a device that dials
 * an instance before is refused (and, with reconnects off, stays refused).
 */
export async function untilCiraAccountKnown(instances: ClusterInstanceProcess[], token: string, username: string): Promise<void> {
  for (const instance of instances) {
    await until(`${instance.name} knows the MPS account`, async () => {
      const listed = await call<Array<{ username: string }>>(instance.url, token, 'GET', '/api/cira/accounts');
      return listed.status === 200 && listed.body.some((a) => a.username === username);
    }, 10_000);
  }
}
