/**
 * IDE redirection (issue 35): a simulated device's installer reading a whole 64 MiB CD image served
 * by the gateway, beside the simulator's own console serving the same image to the same device
 * directly from a process of its own (ider-direct-console.ts: sim-ider-console.ts, the sign-in done
 * with the gateway's client library), in alternating
 * rounds, on a device answering at once and on one taking 1 ms per command round trip; then 50
 * devices booting from one 700 MB image at once through the gateway: gateway RSS added per session
 * (peak during the reads against the idle gateway with the images stored) and /api/health p99 timed
 * from a process of its own throughout, every installer's SHA-256 checked against the image's.
 * MeshCommander's module is not run here (none of its code enters this repository): its published
 * figures (about 11 MB/s on loopback in Node, users' 1.5 MB/s) are stated beside ours.
 * The gateway runs as a site runs it, the compiled bin; the devices and the direct console run in
 * this process.
 *   npm run bench -- ider          BENCH_IDER_BIG_MB=700 (size of the 50-device image)
 */
import { fork, spawnSync } from 'node:child_process';
import { createReadStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchContext, Benchmark } from './bench-context.js';
import type { BenchResult, Figure } from './bench-result.js';
import { startFleet, type Fleet } from '../sim/index.js';
import type { SimDevice } from '../sim/sim-device.js';
import { GatewayClient } from './gateway-client.js';
import { BENCH_RMCP_PORT, startGatewayProcess, type BenchGateway } from './gateway-process.js';
import { healthLatencyApart } from './health-sampler.js';
import { mib, watchRss } from './process-rss.js';
import { writeBootIso, type BuiltImage } from '../helpers/boot-images.js';
import type { BootFindings } from '../sim/redirection/ider/sim-bios.js';

const BASE = '127.202.0.1';
const PASSWORD = 'P@ssw0rd1';
const DEVICES = 50;
const SMALL_BYTES = 64 * 1024 * 1024;
const BIG_BYTES = Number(process.env.BENCH_IDER_BIG_MB ?? 700) * 1e6;
/**
 * What each of the 50 installers reads of the big image after the boot: its first 64 MiB by default
 * (3.4 GB in all; on this shared 2-CPU machine 50 × 700 MB takes longer than a session can wait),
 * `BENCH_IDER_INSTALL_MB=all` for the whole medium.
 */
const INSTALL_BYTES = process.env.BENCH_IDER_INSTALL_MB === 'all' ? null : Number(process.env.BENCH_IDER_INSTALL_MB ?? 64) * 2 ** 20;
/** Rounds per way, alternating, on the device without and with the 1 ms round trip. */
const ROUNDS = { fast: 6, slow: 4 };
/** Image bytes read and sent at a time: the gateway's default, and the same for the direct console. */
const PIECE_BYTES = 131072;
/** Blocks per installer read: 64 KiB, what Linux installers ask of an ATAPI CD at a time. */
const INSTALLER_BLOCKS = 32;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIRECT_CONSOLE = fileURLToPath(new URL('./ider-direct-console.ts', import.meta.url));
const MESHCOMMANDER = { loopback: 11, users: 1.5 };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

export const ider: Benchmark = {
  name: 'ider',
  title: 'IDE redirection: whole-medium read through the gateway vs the simulator console direct; 50 devices booting from one 700 MB image',
  run: measure,
};

async function waitFree(sim: SimDevice): Promise<void> {
  for (let i = 0; i < 500 && (sim.redirection.open.has('ider') || sim.redirection.iderHost.link); i++) await sleep(10);
}

async function attached(sim: SimDevice): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (sim.redirection.iderHost.link?.attached) return;
    await sleep(5);
  }
  throw new Error(`${sim.address}: IDE-R drives never attached`);
}

function checked(findings: BootFindings, image: BuiltImage, what: string, partial = false): number {
  if (findings.error || !findings.installer) throw new Error(`${what}: ${findings.error ?? 'no installer run'}`);
  // A partial read is checked block by block (each block carries its own LBA); a whole one by its SHA-256.
  if (findings.installer.stampErrors !== 0 || (!partial && findings.installer.sha256 !== image.sha256)) throw new Error(`${what}: the installer read other bytes than the image`);
  if (findings.bootImageSha256 !== image.bootSha256) throw new Error(`${what}: the BIOS loaded another boot image`);
  return findings.installer.mbPerSecond;
}

async function upload(client: GatewayClient, name: string, image: BuiltImage): Promise<string> {
  const body = Readable.toWeb(createReadStream(image.path)) as ReadableStream;
  const res = await fetch(`${client.url}/api/images?name=${name}&kind=cd`, { method: 'POST', headers: { authorization: `Bearer ${client.token}`, 'content-type': 'application/octet-stream' }, body, duplex: 'half' } as RequestInit);
  const text = await res.text();
  if (res.status !== 201) throw new Error(`upload ${name}: ${res.status} ${text}`);
  const stored = JSON.parse(text) as { id: string; sha256: string };
  if (stored.sha256 !== image.sha256) throw new Error(`upload ${name}: the gateway computed another SHA-256`);
  return stored.id;
}

/**
 * One whole-medium read with the simulator's console serving the image straight to the device, from
 * a process of its own (ider-direct-console.ts), as the gateway serves from its own process.
 */
async function directRound(sim: SimDevice, image: BuiltImage): Promise<number> {
  const child = fork(DIRECT_CONSOLE, [sim.address, PASSWORD, image.path, String(PIECE_BYTES)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const first = await new Promise<{ open?: boolean; error?: string }>((resolve, reject) => {
      child.once('message', (m) => resolve(m as { open?: boolean; error?: string }));
      child.once('exit', (code) => reject(new Error(`the direct console exited with ${code}`)));
    });
    if (!first.open) throw new Error(`direct IDE-R to ${sim.address}: ${first.error}`);
    await attached(sim);
    return checked(await sim.redirection.iderHost.boot('cd'), image, 'direct');
  } finally {
    if (child.connected) child.send('stop');
    await Promise.race([exited, sleep(5000).then(() => child.kill())]);
    await waitFree(sim);
  }
}

/** The same through the gateway: an IDE-R session opened with the API, ended with DELETE. */
async function gatewayRound(client: GatewayClient, deviceId: string, sim: SimDevice, imageId: string, image: BuiltImage): Promise<number> {
  const session = await client.json<{ id: string }>('POST', `/api/redirection/${deviceId}/sessions`, { mode: 'ider', cd: imageId });
  try {
    await attached(sim);
    return checked(await sim.redirection.iderHost.boot('cd'), image, 'gateway');
  } finally {
    await client.request('DELETE', `/api/redirection/sessions/${session.id}`);
    await waitFree(sim);
  }
}

async function throughput(client: GatewayClient, idOf: (sim: SimDevice) => string, sim: SimDevice, imageId: string, image: BuiltImage, rounds: number, log: BenchContext['log']) {
  const direct: number[] = [];
  const gateway: number[] = [];
  for (let round = 0; round < rounds; round++) {
    // Who goes first alternates, so that a change in the machine's load weighs on both alike.
    const order = round % 2 === 0 ? ['direct', 'gateway'] : ['gateway', 'direct'];
    for (const way of order) {
      if (way === 'direct') direct.push(await directRound(sim, image));
      else gateway.push(await gatewayRound(client, idOf(sim), sim, imageId, image));
    }
    log(`  round ${round + 1}: direct ${direct.at(-1)!.toFixed(1)} MB/s, gateway ${gateway.at(-1)!.toFixed(1)} MB/s`);
  }
  return { direct: median(direct), gateway: median(gateway), all: { direct, gateway } };
}

/** 50 devices boot from one image at once: RSS peak over the idle gateway, health p99 in 10 s windows. */
async function manyAtOnce(client: GatewayClient, gateway: BenchGateway, fleet: Fleet, idOf: (sim: SimDevice) => string, imageId: string, image: BuiltImage, log: BenchContext['log']) {
  const sims = fleet.devices.slice(0, DEVICES);
  for (const sim of sims) Object.assign(sim.redirection.iderHost.host, { roundTripMs: 0, installer: true, installerBlocks: INSTALLER_BLOCKS, installerBytes: INSTALL_BYTES });
  await sleep(2000);
  const idle = gateway.rss()!;
  // The machine's own noise in the same run: /api/health of the idle gateway, one window.
  const idleHealth = await healthLatencyApart(`${client.url}/api/health`, 10_000);
  log(`  idle gateway: health p99 ${idleHealth.p99?.toFixed(1)} ms`);
  const sessions = [];
  for (const sim of sims) sessions.push(await client.json<{ id: string }>('POST', `/api/redirection/${idOf(sim)}/sessions`, { mode: 'ider', cd: imageId }));
  await Promise.all(sims.map(attached));
  const open = gateway.rss()!;
  const watch = watchRss(gateway.pid, 100);
  const started = performance.now();
  let done = false;
  const boots = Promise.all(sims.map((sim) => sim.redirection.iderHost.boot('cd'))).finally(() => void (done = true));
  const healthWindows: number[] = [];
  while (!done) {
    const window = await healthLatencyApart(`${client.url}/api/health`, 10_000);
    if (window.p99 !== null) healthWindows.push(window.p99);
    log(`  health p99 ${window.p99?.toFixed(1)} ms; gateway RSS ${mib(gateway.rss()?.rssKiB ?? 0).toFixed(0)} MiB`);
  }
  const findings = await boots;
  const seconds = (performance.now() - started) / 1000;
  const peak = watch.stop();
  for (const [i, f] of findings.entries()) checked(f, image, `device ${i}`, INSTALL_BYTES !== null);
  for (const s of sessions) await client.request('DELETE', `/api/redirection/sessions/${s.id}`);
  return {
    perSessionMiB: mib(peak.peakKiB - idle.rssKiB) / DEVICES,
    openPerSessionMiB: mib(open.rssKiB - idle.rssKiB) / DEVICES,
    idleMiB: mib(idle.rssKiB),
    peakMiB: mib(peak.peakKiB),
    healthP99: Math.max(...healthWindows),
    idleHealthP99: idleHealth.p99,
    healthWindows,
    aggregateMBps: findings.reduce((sum, f) => sum + (f.installer?.bytes ?? 0), 0) / 1e6 / seconds,
    readEach: findings[0]?.installer?.bytes ?? 0,
    seconds,
  };
}

async function measure({ workDir, log }: BenchContext): Promise<BenchResult> {
  log('building dist/ if stale: the gateway runs as a site runs it, the compiled bin');
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');
  log(`writing the images: ${SMALL_BYTES / 2 ** 20} MiB and ${BIG_BYTES / 1e6} MB`);
  const small = await writeBootIso(join(workDir, 'small.iso'), SMALL_BYTES);
  const big = await writeBootIso(join(workDir, 'big.iso'), BIG_BYTES);
  mkdirSync(join(workDir, 'gateway'));
  const gateway = await startGatewayProcess({
    runner: 'compiled',
    dataDir: join(workDir, 'gateway'),
    plugins: { 'rest-api': {}, redirection: { options: { ider: { pieceBytes: PIECE_BYTES } } }, images: {} },
  });
  const fleet = await startFleet({ count: DEVICES, base: BASE, rmcpPort: BENCH_RMCP_PORT, seed: 'bench-ider', provisioningModes: [1] });
  try {
    const client = new GatewayClient(gateway.url);
    await client.login();
    await client.addCredential('admin', PASSWORD);
    await client.scan(`${BASE}-${DEVICES}`, { timeoutMs: 2000 });
    const devices = await client.json<Array<{ id: string; ipAddress: string }>>('GET', '/api/devices');
    const idOf = (sim: SimDevice) => devices.find((d) => d.ipAddress === sim.address)!.id;
    log('uploading both images (streamed)');
    const smallId = await upload(client, 'small', small);
    const bigId = await upload(client, 'big', big);
    const [fast, slow] = [fleet.devices[0]!, fleet.devices[1]!];
    Object.assign(fast.redirection.iderHost.host, { roundTripMs: 0, installerBlocks: INSTALLER_BLOCKS });
    Object.assign(slow.redirection.iderHost.host, { roundTripMs: 1, installerBlocks: INSTALLER_BLOCKS });
    log(`whole-medium reads of ${SMALL_BYTES / 2 ** 20} MiB, direct and through the gateway in turn: ${ROUNDS.fast} rounds at once, ${ROUNDS.slow} with 1 ms per command`);
    const lan = await throughput(client, idOf, fast, smallId, small, ROUNDS.fast, log);
    const rtt = await throughput(client, idOf, slow, smallId, small, ROUNDS.slow, log);
    log(`${DEVICES} devices booting from the ${BIG_BYTES / 1e6} MB image at once (BIOS, then the installer reads it all)`);
    const many = await manyAtOnce(client, gateway, fleet, idOf, bigId, big, log);
    const figures: Figure[] = [
      { label: `whole-medium read, ${SMALL_BYTES / 2 ** 20} MiB, device answering at once`, unit: 'MB/s', gateway: lan.gateway, reference: lan.direct, better: 'higher', note: 'target ≥ 0.9× the direct console' },
      { label: 'the same, 1 ms per command round trip', unit: 'MB/s', gateway: rtt.gateway, reference: rtt.direct, better: 'higher', note: 'target ≥ 0.9×' },
      { label: 'against MeshCommander in Node on loopback (published)', unit: 'MB/s', gateway: lan.gateway, reference: MESHCOMMANDER.loopback, better: 'higher' },
      { label: "against MeshCommander's users (published), 1 ms device", unit: 'MB/s', gateway: rtt.gateway, reference: MESHCOMMANDER.users, better: 'higher' },
      { label: `${DEVICES} sessions reading at once: gateway RSS added per session (peak)`, unit: 'MiB', gateway: many.perSessionMiB, reference: 1, better: 'lower', note: 'target ≤ 1 MiB' },
      { label: `${DEVICES} sessions: /api/health p99 (worst 10 s window)`, unit: 'ms', gateway: many.healthP99, reference: 20, better: 'lower', note: 'target ≤ 20 ms' },
      { label: 'the same gateway idle, same run (the machine\'s own noise)', unit: 'ms', gateway: many.idleHealthP99, reference: 20, better: 'lower' },
      { label: `${DEVICES} sessions: aggregate served`, unit: 'MB/s', gateway: many.aggregateMBps, reference: null },
    ];
    const rounds = (r: { direct: number[]; gateway: number[] }) => `direct ${r.direct.map((v) => v.toFixed(1)).join(', ')}; gateway ${r.gateway.map((v) => v.toFixed(1)).join(', ')}`;
    return {
      name: 'ider',
      title: ider.title,
      reference: 'the simulator console serving the same image to the same device directly (throughput); the target (memory, health); MeshCommander published figures',
      figures,
      notes: [
        `rounds (MB/s, medians above): at once: ${rounds(lan.all)}; 1 ms: ${rounds(rtt.all)}`,
        `installer reads of ${INSTALLER_BLOCKS} blocks (64 KiB), one command at a time as an ATAPI host issues them; image read from disk in ${PIECE_BYTES / 1024} KiB pieces, DATA_TO_HOST pieces of the device's 8 KiB read buffer`,
        `${DEVICES} at once from the ${(big.sizeBytes / 1e6).toFixed(0)} MB image: ${many.seconds.toFixed(1)} s for the BIOS boot and ${(many.readEach / 1e6).toFixed(0)} MB read by each installer (${INSTALL_BYTES === null ? 'the whole medium, SHA-256 checked' : 'every block checked against its LBA stamp'}); gateway RSS idle ${many.idleMiB.toFixed(0)} MiB, peak ${many.peakMiB.toFixed(0)} MiB, with the sessions open and idle +${many.openPerSessionMiB.toFixed(3)} MiB per session; health p99 per window ${many.healthWindows.map((v) => v.toFixed(1)).join(', ')} ms`,
      ],
    };
  } finally {
    await fleet.stop();
    await gateway.stop();
  }
}
