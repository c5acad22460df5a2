/**
 * Several gateways on one PostgreSQL (`npm run bench -- cluster`), each figure beside its reference
 * from the same run:
 * 1. reads at `--stored` devices (100,000): GET /api/devices?limit=100 (pages across the list) and
 *    GET /api/devices/{id} of a gateway on the PostgreSQL store beside the same gateway on LevelDB
 *    (the site moved over with `migrate-store`); and the floor of answering the list page and its
 *    X-Total-Count with SQL (the two queries alone, straight to the database, no HTTP);
 * 2. a power read of a CIRA device forwarded to the instance holding its tunnel beside the same read
 *    on that instance (p50 of sequential reads);
 * 3. tunnels: three instances behind HAProxy (config/haproxy-cluster.cfg) each holding
 *    `--cira-devices` / 2 CIRA tunnels, RSS per instance beside one LevelDB gateway holding as many;
 *    then SIGKILL of one instance, and the time until each of its devices, redialing through HAProxy
 *    at once, is managed through the others (listed with its tunnel on an up instance, a power read
 *    through another instance answering).
 * Needs PostgreSQL (Debian's postgresql) and, for 3, haproxy.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Benchmark } from './bench-context.js';
import type { Figure } from './bench-result.js';
import { GatewayClient } from './gateway-client.js';
import { MASTER_KEY, startGatewayProcess, type BenchGateway } from './gateway-process.js';
import { measureInterleaved } from './http-load.js';
import { percentile } from './latency.js';
import { seedDevices } from './seed-devices.js';
import { findPostgresBin, startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { startClusterHaproxy, type ClusterHaproxy } from './cluster-haproxy.js';
import { haproxyAvailable } from './cira-haproxy-front.js';
import { freePort } from './free-port.js';
import { startFleet } from '../sim/index.js';
import { stopFleets } from './cira-scale.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = fileURLToPath(new URL('../sim/cli.ts', import.meta.url));
const MPS = { username: 'bench-mps', password: 'Bench-MPS-P@ss1' };
const DEVICE_PASSWORD = 'P@ssw0rd1';
const KEEPALIVE = { keepAliveIntervalSeconds: 10, keepAliveTimeoutSeconds: 30 };
const mibOf = (g: BenchGateway) => {
  const rss = g.rss();
  return rss ? rss.rssKiB / 1024 : null;
};

function build(): void {
  const run = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
  if (run.status !== 0) throw new Error('npm run build failed');
}

/** A gateway instance on the PostgreSQL store, compiled, as a site runs it. */
/**
 * The like-for-like reference: one LevelDB gateway holding `count` tunnels behind HAProxy (TLS ended
 * there, PROXY v2 to the gateway), as each instance of the cluster holds its share, and knowing
 * `others` more devices (stored before it starts), as each instance mirrors every device of the site.
 */
async function referenceBehindHaproxy(workDir: string, tls: { cert: string; key: string }, pemFile: string, caFile: string, count: number, others: number, rampMs: number, log: (l: string) => void): Promise<number | null> {
  const dir = join(workDir, 'ref-haproxy');
  mkdirSync(dir, { recursive: true });
  if (others > 0) await seedDevices(dir, others);
  const apf = await freePort();
  const gateway = await startGatewayProcess({ runner: 'compiled', dataDir: dir, plugins: { 'rest-api': {}, cira: { options: { port: apf, tls: { ...tls, terminator: 'haproxy' }, proxySources: ['127.0.0.1'], ...KEEPALIVE } } } });
  const fleets: ChildProcess[] = [];
  let haproxy: ClusterHaproxy | undefined;
  try {
    const client = new GatewayClient(gateway.url);
    await client.login();
    await client.json('POST', '/api/cira/accounts', MPS);
    haproxy = await startClusterHaproxy(dir, pemFile, [{ apf, http: Number(new URL(gateway.url).port) }], count);
    log(`reference: ${count} tunnels through HAProxy into one LevelDB gateway that knows ${others} more devices`);
    const share = Math.ceil(count / haproxy.frontPorts.length);
    haproxy.frontPorts.forEach((port, i) => fleets.push(fleetProcess(port, Math.min(share, count - i * share), `127.${207 + i}.0.1`, caFile, rampMs, 2000)));
    await tunnelsUp(client, count, 600_000, log);
    await sleep(30_000);
    const mib = mibOf(gateway);
    log(`reference behind HAProxy: RSS ${mib?.toFixed(0)} MiB`);
    return mib;
  } finally {
    await stopFleets(fleets.splice(0));
    await haproxy?.stop();
    await gateway.stop();
  }
}

function instance(dir: string, url: string, name: string, plugins: Record<string, { options?: Record<string, unknown> }>): Promise<BenchGateway> {
  mkdirSync(dir, { recursive: true });
  return startGatewayProcess({ runner: 'compiled', dataDir: dir, plugins, site: { store: { driver: 'postgres', url }, cluster: { instanceName: name, heartbeatSeconds: 1, downAfterSeconds: 3 } } });
}

/** Requests per second of the list page and its count answered by SQL (the floor of a SQL-served list). */
async function sqlFloor(url: string, total: number, seconds: number): Promise<number> {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  let done = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: 8 }, async (_, c) => {
      for (let i = c; performance.now() < until; i += 8) {
        const offset = Math.floor(((i % 100) * total) / 100);
        await Promise.all([
          pool.query('SELECT value::text FROM devices ORDER BY ip_address, key LIMIT 100 OFFSET $1', [offset]),
          pool.query('SELECT count(*) FROM devices'),
        ]);
        done++;
      }
    }),
  );
  await pool.end();
  return done / seconds;
}

async function reads(workDir: string, server: PostgresServer, stored: number, connections: number, durationS: number, log: (l: string) => void): Promise<Figure[]> {
  const levelDir = join(workDir, 'level');
  log(`seeding ${stored} devices into LevelDB, then migrate-store into PostgreSQL`);
  const devices = await seedDevices(levelDir, stored);
  const url = await server.createDatabase('reads');
  const site = join(workDir, 'migrate-site.json');
  writeFileSync(site, JSON.stringify({ dataDir: levelDir, plugins: { 'rest-api': { enable: true }, 'soap-mps': { enable: false } } }));
  const migrated = spawnSync(process.execPath, [join(ROOT, 'dist/core/main.js'), 'migrate-store', '--config', site, '--to', url], { cwd: ROOT, env: { ...process.env, AMTGW_MASTER_KEY: MASTER_KEY }, encoding: 'utf8' });
  if (migrated.status !== 0) throw new Error(`migrate-store failed: ${migrated.stdout}${migrated.stderr}`);
  const level = await startGatewayProcess({ runner: 'compiled', dataDir: levelDir, plugins: { 'rest-api': {} } });
  const postgres = await instance(join(workDir, 'pg-reads'), url, 'reads', { 'rest-api': {} });
  try {
    const a = new GatewayClient(level.url);
    const b = new GatewayClient(postgres.url);
    await a.login();
    await b.login();
    const total = (await b.request('GET', '/api/devices?limit=1')).headers.get('x-total-count');
    if (Number(total) !== stored) throw new Error(`the PostgreSQL gateway lists ${total} devices, ${stored} were migrated`);
    const pages = Array.from({ length: 100 }, (_, i) => `/api/devices?offset=${Math.floor((i * stored) / 100)}&limit=100`);
    const ids = Array.from({ length: 10_000 }, () => `/api/devices/${devices[Math.floor(Math.random() * devices.length)]!.id}`);
    const load = (gw: BenchGateway, token: string, paths: string[]) => ({ url: `${gw.url}/api/devices`, headers: { authorization: `Bearer ${token}` }, paths, connections, durationS });
    log(`list and get on each store: ${connections} connections, ${durationS} s each in 2 rounds`);
    const r = await measureInterleaved({ levelList: load(level, a.token, pages), pgList: load(postgres, b.token, pages), levelOne: load(level, a.token, ids), pgOne: load(postgres, b.token, ids) });
    log('the SQL floor: the list page and its count straight from PostgreSQL, 8 callers, 5 s');
    const floor = await sqlFloor(url, stored, 5);
    return [
      { label: `GET /api/devices?limit=100 at ${stored.toLocaleString('en-US')} devices`, unit: 'req/s', gateway: r.pgList.rps, reference: r.levelList.rps, better: 'higher', note: 'target ≥ ×0.8' },
      { label: 'GET /api/devices/{id}', unit: 'req/s', gateway: r.pgOne.rps, reference: r.levelOne.rps, better: 'higher', note: 'target ≥ ×0.8' },
      { label: 'the list page + X-Total-Count by SQL alone (no HTTP)', unit: 'req/s', gateway: floor, reference: r.levelList.rps, better: 'higher', note: 'the floor of a SQL-served list' },
    ];
  } finally {
    await level.stop();
    await postgres.stop();
  }
}

async function forwarded(workDir: string, server: PostgresServer, log: (l: string) => void): Promise<Figure[]> {
  const url = await server.createDatabase('forward');
  const ciraPort = await freePort();
  const cira = (port: number) => ({ 'rest-api': {}, 'power-mgmt': {}, cira: { options: { port, host: '127.0.0.1', ...KEEPALIVE } } });
  const holder = await instance(join(workDir, 'fw-holder'), url, 'holder', cira(ciraPort));
  const other = await instance(join(workDir, 'fw-other'), url, 'other', cira(await freePort()));
  const fleet = await startFleetCira(holder, ciraPort, workDir);
  try {
    const client = new GatewayClient(other.url);
    await client.login();
    const deviceId = await waitFor(async () => (await client.json<Array<{ id: string; connections?: string[] }>>('GET', '/api/devices')).find((d) => d.connections?.includes('cira'))?.id, 30_000);
    const direct = new GatewayClient(holder.url);
    await direct.login();
    const time = async (c: GatewayClient) => {
      const t = performance.now();
      const res = await c.request('GET', `/api/power/${deviceId}`);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`power read answered ${res.status}`);
      return performance.now() - t;
    };
    for (let i = 0; i < 20; i++) await Promise.all([time(direct), time(client)]);
    const here: number[] = [];
    const there: number[] = [];
    log('power reads of one CIRA device: 300 on the tunnel\'s instance, 300 through another, alternating');
    for (let i = 0; i < 300; i++) {
      here.push(await time(direct));
      there.push(await time(client));
    }
    here.sort((a, b) => a - b);
    there.sort((a, b) => a - b);
    const p50 = (xs: number[]) => percentile(xs, 50);
    return [
      { label: 'power read of a CIRA device, forwarded, p50', unit: 'ms', gateway: p50(there), reference: p50(here), better: 'lower', note: `adds ${((p50(there) ?? 0) - (p50(here) ?? 0)).toFixed(2)} ms; target ≤ 2 ms` },
    ];
  } finally {
    await fleet.stop();
    await holder.stop();
    await other.stop();
  }
}

async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('not reached in time');
    await sleep(250);
  }
}

/** One CIRA device in this process, dialing the instance's CIRA port. */
async function startFleetCira(gateway: BenchGateway, port: number, workDir: string) {
  const client = new GatewayClient(gateway.url);
  await client.login();
  await client.addCredential('admin', DEVICE_PASSWORD);
  await client.json('POST', '/api/cira/accounts', MPS);
  const ca = (await client.json<{ pem: string }>('GET', '/api/cira/certificate')).pem;
  writeFileSync(join(workDir, 'fw-ca.pem'), ca);
  return startFleet({ count: 1, base: '127.203.0.1', rmcpPort: 0, seed: 'bench-forward', password: DEVICE_PASSWORD, cira: { host: '127.0.0.1', port, username: MPS.username, password: MPS.password, ca, keepAliveSeconds: 10, reconnectMs: 0 } });
}

/** Fleet processes of `count` CIRA devices each dialing `port` (HAProxy), from 127.202.x.y / 127.204.x.y. */
function fleetProcess(port: number, count: number, base: string, caFile: string, rampMs: number, reconnectMs: number): ChildProcess {
  return spawn(
    process.execPath,
    ['--import', 'tsx', CLI, '--count', String(count), '--base', base, '--rmcp-port', 'none', '--seed', `cluster-${base}`, '--password', DEVICE_PASSWORD,
      '--cira-host', '127.0.0.1', '--cira-port', String(port), '--cira-username', MPS.username, '--cira-password', MPS.password,
      '--cira-ca', caFile, '--cira-ramp-ms', String(rampMs), '--cira-reconnect-ms', String(reconnectMs), '--summary'],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
}

/** Live tunnels the gateway lists (every instance's, in a cluster). */
async function liveTunnels(client: GatewayClient): Promise<number> {
  const res = await client.request('GET', '/api/cira/connections?limit=1');
  await res.arrayBuffer();
  return Number(res.headers.get('x-total-count'));
}

/** Waits until the gateway lists `count` tunnels, saying how many every 10 s. */
async function tunnelsUp(client: GatewayClient, count: number, timeoutMs: number, log: (l: string) => void): Promise<void> {
  let said = performance.now();
  await waitFor(async () => {
    const live = await liveTunnels(client);
    if (performance.now() - said > 10_000) {
      said = performance.now();
      log(`  ${live} of ${count} tunnels up`);
    }
    return live >= count ? true : undefined;
  }, timeoutMs);
}

async function tunnels(workDir: string, server: PostgresServer, perInstance: number, rampMs: number, log: (l: string) => void): Promise<{ figures: Figure[]; notes: string[] }> {
  const fleets: ChildProcess[] = [];

  // The reference: one LevelDB gateway with its own TLS, `perInstance` tunnels. The CIRA pair it
  // generates is then the cluster's (every instance's tls.cert / tls.key, and HAProxy's PEM).
  const refPort = await freePort();
  const refDir = join(workDir, 'ref');
  mkdirSync(refDir, { recursive: true });
  const reference = await startGatewayProcess({ runner: 'compiled', dataDir: refDir, plugins: { 'rest-api': {}, cira: { options: { port: refPort, host: '127.0.0.1', ...KEEPALIVE } } } });
  const tls = { cert: join(refDir, 'cira/server.cert.pem'), key: join(refDir, 'cira/server.key.pem') };
  const caFile = tls.cert;
  const pemFile = join(workDir, 'cluster-cira.pem');
  writeFileSync(pemFile, `${readFileSync(tls.cert, 'utf8').trimEnd()}\n${readFileSync(tls.key, 'utf8').trimEnd()}\n`, { mode: 0o600 });
  let referenceMiB: number | null;
  try {
    const client = new GatewayClient(reference.url);
    await client.login();
    await client.json('POST', '/api/cira/accounts', MPS);
    log(`reference: ${perInstance} tunnels into one LevelDB gateway`);
    fleets.push(fleetProcess(refPort, perInstance, '127.202.0.1', caFile, rampMs, 2000));
    await tunnelsUp(client, perInstance, 600_000, log);
    await sleep(30_000);
    referenceMiB = mibOf(reference);
    log(`reference RSS ${referenceMiB?.toFixed(0)} MiB`);
  } finally {
    await stopFleets(fleets.splice(0));
    await reference.stop();
  }
  const behindMiB = await referenceBehindHaproxy(workDir, tls, pemFile, caFile, perInstance, 2 * perInstance, rampMs, log);

  const url = await server.createDatabase('tunnels');
  const ports = await Promise.all([freePort(), freePort(), freePort()]);
  const names = ['gw-1', 'gw-2', 'gw-3'];
  const gateways: BenchGateway[] = [];
  let haproxy: ClusterHaproxy | undefined;
  try {
    for (const [i, name] of names.entries()) {
      gateways.push(await instance(join(workDir, name), url, name, { 'rest-api': {}, 'power-mgmt': {}, cira: { options: { port: ports[i]!, tls: { ...tls, terminator: 'haproxy' }, proxySources: ['127.0.0.1'], ...KEEPALIVE } } }));
    }
    const client = new GatewayClient(gateways[0]!.url);
    await client.login();
    await client.addCredential('admin', DEVICE_PASSWORD);
    await client.json('POST', '/api/cira/accounts', MPS);
    haproxy = await startClusterHaproxy(workDir, pemFile, ports.map((apf, i) => ({ apf, http: Number(new URL(gateways[i]!.url).port) })), 3 * perInstance);
    log(`cluster: ${3 * perInstance} tunnels through HAProxy (${haproxy.frontPorts.length} process(es)) into three instances`);
    const share = Math.ceil((3 * perInstance) / haproxy.frontPorts.length);
    haproxy.frontPorts.forEach((port, i) => fleets.push(fleetProcess(port, Math.min(share, 3 * perInstance - i * share), `127.${204 + i}.0.1`, caFile, rampMs, 500)));
    await tunnelsUp(client, 3 * perInstance, 900_000, log);
    await sleep(30_000);
    const rss = gateways.map(mibOf);
    const counts = await client.json<{ instances: Array<{ name: string; ciraTunnels: number; state: string }> }>('GET', '/api/cluster');
    log(`cluster RSS ${rss.map((m) => m?.toFixed(0)).join(', ')} MiB; tunnels ${counts.instances.filter((i) => i.state === 'up').map((i) => `${i.name} ${i.ciraTunnels}`).join(', ')}`);

    // Failover: the instance with the most tunnels dies; its devices redial through HAProxy at once.
    const victimIndex = counts.instances.filter((i) => i.state === 'up').sort((a, b) => b.ciraTunnels - a.ciraTunnels)[0]!;
    const index = names.indexOf(victimIndex.name);
    const survivor = new GatewayClient(gateways[(index + 1) % 3]!.url);
    await survivor.login();
    const before = await survivor.json<Array<{ deviceId: string; instance: string }>>('GET', '/api/cira/connections');
    const victims = before.filter((c) => c.instance === victimIndex.name).map((c) => c.deviceId);
    log(`SIGKILL ${victimIndex.name}, holding ${victims.length} tunnels`);
    const killedAt = performance.now();
    process.kill(gateways[index]!.pid, 'SIGKILL');
    let managedAt: number | null = null;
    let firstRedial: number | null = null;
    const deadline = killedAt + 180_000;
    while (performance.now() < deadline) {
      const now = await survivor.json<Array<{ deviceId: string; instance: string }>>('GET', '/api/cira/connections').catch(() => []);
      const back = new Set(now.filter((c) => c.instance !== victimIndex.name).map((c) => c.deviceId));
      const returned = victims.filter((id) => back.has(id)).length;
      if (returned > 0 && firstRedial === null) firstRedial = performance.now();
      if (returned === victims.length) {
        managedAt = performance.now();
        break;
      }
      await sleep(250);
    }
    // Managed: a power read through the survivor answers for a sample of them.
    const sample = victims.slice(0, 20);
    const reads = await Promise.all(sample.map(async (id) => (await survivor.request('GET', `/api/power/${id}`)).status));
    const readsOk = reads.filter((s) => s === 200).length;
    const figures: Figure[] = [
      ...rss.map((m, i): Figure => ({ label: `RSS of ${names[i]} with its share of ${(3 * perInstance).toLocaleString('en-US')} tunnels`, unit: 'MiB', gateway: m, reference: behindMiB, better: 'lower', note: `target ≤ ×1.1; reference: one LevelDB gateway with as many tunnels, behind HAProxy as the instances are, knowing the site's other ${(2 * perInstance).toLocaleString('en-US')} devices as every instance does; one terminating TLS itself and knowing only its own: ${referenceMiB?.toFixed(0) ?? '?'} MiB` })),
      {
        label: `failover: ${victims.length} devices of the killed instance managed through the others, from their first redial`,
        unit: 's',
        gateway: managedAt === null || firstRedial === null ? null : (managedAt - firstRedial) / 1000,
        reference: 30,
        better: 'lower',
        note: `target ≤ 30 s; ${managedAt === null ? 'not all back within 180 s' : `${((managedAt - killedAt) / 1000).toFixed(1)} s from the kill`}; ${readsOk}/${sample.length} sampled power reads through another instance answered`,
      },
    ];
    return { figures, notes: [`Tunnels per instance after the ramp: ${counts.instances.filter((i) => i.state === 'up').map((i) => `${i.name} ${i.ciraTunnels}`).join(', ')}.`] };
  } finally {
    await stopFleets(fleets);
    await haproxy?.stop();
    for (const g of gateways) await g.stop().catch(() => undefined);
  }
}

export const cluster: Benchmark = {
  name: 'cluster',
  title: 'Cluster: several gateways on one PostgreSQL',
  unavailable: () => (findPostgresBin() ? undefined : 'PostgreSQL is not installed (apt-get install -y postgresql)'),
  async run({ options, workDir, log }) {
    build();
    const server = await startPostgres({ settings: { max_connections: '300' } });
    try {
      const figures: Figure[] = [];
      const notes: string[] = [
        'PostgreSQL runs on this machine (Debian\'s, fsync off: the figures are of the gateway, not the disk).',
      ];
      figures.push(...(await reads(workDir, server, options.stored, options.connections, options.durationS, log)));
      figures.push(...(await forwarded(workDir, server, log)));
      if (haproxyAvailable()) {
        const t = await tunnels(workDir, server, Math.max(1, Math.floor(options.ciraDevices / 2)), options.ciraRampS * 1000, log);
        figures.push(...t.figures);
        notes.push(...t.notes);
      } else notes.push('Tunnels and failover skipped: haproxy is not installed.');
      return { name: 'cluster', title: 'Cluster: several gateways on one PostgreSQL', reference: 'the same figure of one LevelDB gateway (or the target)', figures, notes };
    } finally {
      await server.destroy();
    }
  },
};
