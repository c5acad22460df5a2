/**
 * A real PostgreSQL server for the cluster suite and the cluster benchmark: Debian's `postgresql`
 * binaries (or those named by AMTGW_POSTGRES_BIN), a fresh cluster in a temporary folder, listening
 * on loopback. PostgreSQL refuses to run as root (CI runs as root), so as root the server runs as
 * `nobody`, its folder owned by it.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../bench/free-port.js';

/** The folder holding `initdb` and `postgres`, or undefined when none is installed. */
export function findPostgresBin(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env['AMTGW_POSTGRES_BIN'];
  if (named) return existsSync(join(named, 'postgres')) ? named : undefined;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) if (existsSync(join(root, version, 'bin', 'postgres'))) return join(root, version, 'bin');
  return undefined;
}

/** Skips a test when no PostgreSQL is installed, or fails it when AMTGW_REQUIRE_POSTGRES=1 (CI). */
export function skipWithoutPostgres(t: { skip(message: string): void }): boolean {
  if (findPostgresBin()) return false;
  const reason = 'PostgreSQL is not installed (apt-get install -y postgresql, or set AMTGW_POSTGRES_BIN)';
  if (process.env['AMTGW_REQUIRE_POSTGRES'] === '1') assert.fail(reason);
  t.skip(reason);
  return true;
}

export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:port/postgres` */
  readonly url: string;
  readonly port: number;
  /** A new, empty database; its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server the way a crash would (SIGKILL of the postmaster and its children) or politely. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same folder and port. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  destroy(): Promise<void>;
}

const asNobody = () => (process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {});

/** Initialises a cluster in a temporary folder and starts it on a free loopback port. */
export async function startPostgres(options: { bin?: string; settings?: Record<string, string> } = {}): Promise<PostgresServer> {
  const bin = options.bin ?? findPostgresBin();
  if (!bin) throw new Error('no PostgreSQL binaries found');
  const dir = mkdtempSync(join(tmpdir(), 'amtgw-pg-'));
  const data = join(dir, 'data');
  const ids = asNobody();
  if (ids.uid !== undefined) chownSync(dir, ids.uid, ids.gid!);
  const init = spawnSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale'], { ...ids, encoding: 'utf8', cwd: dir });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  const port = await freePort();
  // Tests and benchmarks need no durability across a machine crash: fsync off keeps them fast;
  // a process kill (the gateway's or the server's) still loses nothing committed.
  const settings: Record<string, string> = {
    listen_addresses: "'127.0.0.1'",
    port: String(port),
    unix_socket_directories: `'${dir}'`,
    fsync: 'off',
    full_page_writes: 'off',
    max_connections: '200',
    shared_buffers: '128MB',
    log_min_messages: 'warning',
    ...options.settings,
  };
  writeFileSync(join(data, 'postgresql.auto.conf'), Object.entries(settings).map(([k, v]) => `${k} = ${v}`).join('\n') + '\n');
  if (ids.uid !== undefined) chownSync(join(data, 'postgresql.auto.conf'), ids.uid, ids.gid!);
  let child: ChildProcess | undefined;
  let log = '';
  const start = async () => {
    log = '';
    const started = spawn(join(bin, 'postgres'), ['-D', data], { ...ids, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    started.stdout!.on('data', (d: Buffer) => (log += d.toString()));
    started.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    child = started;
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (started.exitCode !== null) throw new Error(`postgres exited at start: ${log}`);
      const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
      try {
        await client.connect();
        await client.end();
        return;
      } catch {
        await client.end().catch(() => undefined);
        if (Date.now() > deadline) throw new Error(`postgres did not accept connections within 30 s: ${log}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((r) => running.once('exit', r));
    if (mode === 'immediate') {
      // The postmaster's children go with it: SIGQUIT is PostgreSQL's own "immediate shutdown", no checkpoint.
      running.kill('SIGQUIT');
    } else running.kill('SIGINT');
    await exited;
  };
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let databases = 0;
  return {
    url,
    port,
    async createDatabase(name = `gw_${process.pid}_${++databases}`) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    stop,
    start,
    async destroy() {
      await stop('immediate');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
