/**
 * CIRA at scale: N simulated devices (a child process, each dialing from its own 127.202.x.y) dial
 * into one gateway process (rest-api + cira, keep-alive every 10 s). Measures how long until every
 * tunnel is authenticated and up, how long until every device was read through its tunnel, the
 * gateway's RSS with the idle tunnels, and /api/health latency under their keep-alives beside the
 * same latency with no tunnel. `front` says who terminates the devices' TLS: the gateway (Node's
 * TLS), or HAProxy in front of the gateway's PROXY v2 unix socket (cira-haproxy-front.ts), whose
 * RSS is then read too.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { startHaproxyFront, type HaproxyFront } from './cira-haproxy-front.js';
import { freePort } from './free-port.js';
import { GatewayClient } from './gateway-client.js';
import { startGatewayProcess } from './gateway-process.js';
import { percentile } from './latency.js';
import { readRss } from './process-rss.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = fileURLToPath(new URL('../sim/cli.ts', import.meta.url));
export const CIRA_BENCH_BASE = '127.202.0.1';
export const CIRA_MPS = { username: 'bench-mps', password: 'Bench-MPS-P@ss1' };
const DEVICE_PASSWORD = 'P@ssw0rd1';
const KEEPALIVE_S = 10;

export type TlsFront = 'gateway' | 'haproxy';

export interface ScaleFigures {
  devices: number;
  front: TlsFront;
  /** HAProxy processes in front (0 for the gateway's own TLS). */
  haproxyProcesses: number;
  haproxyRssMiB: number | null;
  authenticatedS: number | null;
  readS: number | null;
  idleRssMiB: number | null;
  /** The same gateway before any tunnel. */
  bareRssMiB: number | null;
  fleetRssMiB: number | null;
  healthIdle: { p50: number | null; p99: number | null };
  healthLoaded: { p50: number | null; p99: number | null };
}

/** Sequential /api/health requests, one every `gapMs`, for `durationMs`: latency percentiles in ms. */
export async function healthLatency(url: string, durationMs: number, gapMs = 5): Promise<{ p50: number | null; p99: number | null }> {
  const samples: number[] = [];
  const end = Date.now() + durationMs;
  while (Date.now() < end) {
    const t = performance.now();
    const res = await fetch(`${url}/api/health`);
    await res.arrayBuffer();
    samples.push(performance.now() - t);
    await sleep(gapMs);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

/** Polls until `check` is true; the elapsed ms, or null after `timeoutMs`. A poll that fails (a busy machine resetting a kept-alive connection) is retried. */
async function elapsedUntil(check: () => Promise<boolean>, t0: number, timeoutMs: number, intervalMs = 250): Promise<number | null> {
  for (;;) {
    if (await check().catch(() => false)) return performance.now() - t0;
    if (performance.now() - t0 > timeoutMs) return null;
    await sleep(intervalMs);
  }
}

const mib = (r: { rssKiB: number } | undefined) => (r ? `${Math.round(r.rssKiB / 1024)} MiB` : '?');

/** One fleet process per target (port), each dialing from its own block of 127.202.x.y. */
function startFleets(targets: Array<{ port: number; devices: number }>, caFile: string, rampMs: number): ChildProcess[] {
  return targets.map(({ port, devices }, i) =>
    spawn(
      process.execPath,
      ['--import', 'tsx', CLI, '--count', String(devices), '--base', i === 0 ? CIRA_BENCH_BASE : `127.202.${i * 100}.1`, '--rmcp-port', 'none', '--seed', `cira-bench-${i}`, '--password', DEVICE_PASSWORD,
        '--cira-host', '127.0.0.1', '--cira-port', String(port), '--cira-username', CIRA_MPS.username, '--cira-password', CIRA_MPS.password,
        '--cira-ca', caFile, '--cira-ramp-ms', String(rampMs), '--summary'],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    ),
  );
}

/** Stops child processes (SIGTERM, SIGKILL after 20 s) and waits for them. */
export async function stopFleets(fleets: ChildProcess[]): Promise<void> {
  await Promise.all(
    fleets.map(async (fleet) => {
      if (fleet.exitCode !== null) return;
      const exited = new Promise((resolve) => fleet.once('exit', resolve));
      fleet.kill('SIGTERM');
      const timer = setTimeout(() => fleet.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }),
  );
}

const sumRssMiB = (pids: Array<number | undefined>): number | null => {
  let kib = 0;
  for (const pid of pids) {
    const rss = pid === undefined ? undefined : readRss(pid);
    if (!rss) return null;
    kib += rss.rssKiB;
  }
  return kib / 1024;
};

/** `rampMs`: the devices' first dials are spread over it (a fleet powering on); the times are measured from the first dial. */
export async function ciraScale(workDir: string, count: number, log: (line: string) => void, front: TlsFront = 'gateway', rampMs = 30_000): Promise<ScaleFigures> {
  const ciraPort = await freePort();
  const socketPath = join(workDir, 'cira.sock');
  log('building dist/ if stale: the gateway runs as a site runs it, the compiled bin');
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed; the compiled gateway cannot be measured');
  const keepAlive = { keepAliveIntervalSeconds: KEEPALIVE_S, keepAliveTimeoutSeconds: 3 * KEEPALIVE_S };
  const listener = front === 'gateway' ? { port: ciraPort, host: '127.0.0.1' } : { tls: { terminator: 'haproxy' }, socketPath };
  const gateway = await startGatewayProcess({ runner: 'compiled', dataDir: workDir, plugins: { 'rest-api': {}, cira: { options: { ...listener, ...keepAlive } } } });
  let fleets: ChildProcess[] = [];
  let haproxy: HaproxyFront | undefined;
  try {
    const client = new GatewayClient(gateway.url);
    await client.login();
    await client.addCredential('admin', DEVICE_PASSWORD);
    await client.json('POST', '/api/cira/accounts', CIRA_MPS);
    const caFile = join(workDir, 'cira-ca.pem');
    writeFileSync(caFile, (await client.json<{ pem: string }>('GET', '/api/cira/certificate')).pem);
    let targets = [{ port: ciraPort, devices: count }];
    if (front === 'haproxy') {
      // The gateway's generated pair, combined as config/haproxy-cira.cfg tells the operator.
      const pemFile = join(workDir, 'amt-gateway-cira.pem');
      const awk = spawnSync('awk', ['1', join(workDir, 'cira/server.cert.pem'), join(workDir, 'cira/server.key.pem')], { encoding: 'utf8' });
      writeFileSync(pemFile, awk.stdout, { mode: 0o600 });
      haproxy = await startHaproxyFront(workDir, pemFile, socketPath, count);
      targets = haproxy.shards;
      log(`HAProxy in front: ${targets.length} process(es), ${targets.map((t) => t.devices).join(' + ')} devices`);
    }

    log('/api/health with no tunnel: 5 s');
    const healthIdle = await healthLatency(gateway.url, 5_000);
    const bareRss = gateway.rss();

    log(`${count.toLocaleString('en-US')} CIRA devices dial in (${front} terminates TLS) from ${CIRA_BENCH_BASE} upward, first dials spread over ${rampMs / 1000} s`);
    const t0 = performance.now();
    fleets = startFleets(targets, caFile, rampMs);
    const atLeast = async (path: string, n: number) => (await client.json<unknown[]>('GET', `${path}${path.includes('?') ? '&' : '?'}offset=${n - 1}&limit=1`)).length === 1;
    let lastLog = 0;
    const authenticated = await elapsedUntil(async () => {
      const res = await client.request('GET', '/api/cira/connections?limit=1');
      await res.arrayBuffer();
      const live = Number(res.headers.get('x-total-count'));
      if (performance.now() - lastLog > 5_000) {
        lastLog = performance.now();
        log(`  ${live.toLocaleString('en-US')} tunnels up after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      }
      return live >= count;
    }, t0, 600_000);
    const upRss = gateway.rss();
    log(`all tunnels up: ${authenticated === null ? 'not within 600 s' : `${(authenticated / 1000).toFixed(1)} s`}, gateway RSS ${mib(upRss)} (peak ${upRss ? Math.round(upRss.peakKiB / 1024) : '?'} MiB)`);
    const read = await elapsedUntil(() => atLeast('/api/devices?provisioningState=POST', count), t0, 1_200_000, 1_000);
    log(`all devices read through their tunnels: ${read === null ? 'not within 1,200 s' : `${(read / 1000).toFixed(1)} s`}`);

    log('idle tunnels: settling 40 s after the reads, then RSS and /api/health for 10 s under the keep-alives');
    await sleep(40_000);
    const rss = gateway.rss();
    const haproxyKiB = haproxy?.rssKiB();
    const fleetRssMiB = sumRssMiB(fleets.map((f) => f.pid));
    log(`idle: gateway RSS ${mib(rss)}${haproxy ? `, HAProxy RSS ${haproxyKiB === undefined ? '?' : Math.round(haproxyKiB / 1024)} MiB` : ''}`);
    const healthLoaded = await healthLatency(gateway.url, 10_000);
    return {
      devices: count,
      front,
      haproxyProcesses: haproxy?.shards.length ?? 0,
      haproxyRssMiB: haproxyKiB === undefined ? null : haproxyKiB / 1024,
      authenticatedS: authenticated === null ? null : authenticated / 1000,
      readS: read === null ? null : read / 1000,
      idleRssMiB: rss ? rss.rssKiB / 1024 : null,
      bareRssMiB: bareRss ? bareRss.rssKiB / 1024 : null,
      fleetRssMiB,
      healthIdle,
      healthLoaded,
    };
  } finally {
    await stopFleets(fleets);
    await haproxy?.stop();
    await gateway.stop();
  }
}
