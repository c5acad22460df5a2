/**
 * Remote console (issue 22): KVM relay throughput against a direct RFB connection to the same
 * simulated device, the latency the relay adds to a key press and its screen update, 100 KVM plus
 * 100 SOL sessions held open (/api/health p99, gateway RSS per idle session), and KVM through a CIRA
 * tunnel against the same (TLS) device over the LAN. The gateway runs as its own process; the
 * simulated devices and the clients run in this one (CPU seconds of both are reported per MB).
 * Throughput is measured in alternating rounds (redirection-rounds.ts) so that a machine whose load
 * changes from second to second weighs on both ways alike; the figures are medians of the rounds,
 * the notes give every round, the ratio of each round pair and the CPU each process spent.
 * Beside them, in the same rounds, bare proxy processes between the same viewer and device
 * (relay-floor.ts: a Node process that only pipes TCP, HAProxy with splice when installed, and the
 * cheapest Node + ws relay that serves the viewer a WebSocket, as a browser needs): floors of a relay
 * in a process of its own on this machine, since the direct way needs no second process.
 * Key presses go one on a direct session and one on a relayed session in turn (two devices of the
 * same fleet, swapped every round), so both latencies see the same moments.
 * Memory per idle session and /api/health with 200 sessions are read first, on a gateway process of
 * their own (stopped before the frame rounds), after forced full GCs in its main and worker threads
 * (fixtures/gc-probe.cjs), readings repeated until they settle, at every step of 20 sessions: RSS,
 * and the JS heap apart from the allocator.
 * Both gateways run as a site runs them, the compiled bin with its shebang's allocator setting and
 * node flags (dist/ is built if stale): under tsx, glibc's malloc thresholds move with what the
 * process happened to free before, and with them the page faults, and so the CPU, per MB relayed.
 * BENCH_REDIRECTION_MALLOC=keep runs the benchmark's own process (devices and viewers of every way)
 * with an allocator that keeps what it frees (redirection-process.ts; not the default, see there).
 *   npm run bench -- redirection
 */
import { spawnSync } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchContext, Benchmark } from './bench-context.js';
import type { BenchResult, Figure } from './bench-result.js';
import type { RfbClient } from '../helpers/rfb-client.js';
import { startFleet } from '../sim/index.js';
import { freePort } from './free-port.js';
import { GatewayClient } from './gateway-client.js';
import { BENCH_RMCP_PORT, startGatewayProcess } from './gateway-process.js';
import { percentile } from './latency.js';
import { CIRA_MPS } from './cira-scale.js';
import { directKvm, relayKvm, wsPipeKvm } from './redirection-clients.js';
import { MEMORY_STEPS, sessionsPhase, waitFree, type SimDevice } from './redirection-sessions.js';
import { inTunedProcess } from './redirection-process.js';
import { FLOORS, floorKinds, startRelayFloor, type RelayFloor } from './relay-floor.js';
import { alternate, alternateKeys, describeWay, median, pairRatios, type RoundWork, type Way, type WayResult } from './redirection-rounds.js';

const BASE = '127.201.0.1';
const CIRA_BASE = '127.201.1.1';
/** Where the bare proxies in front of the first device listen (the relay's floors), by kind. */
const FLOOR_ADDRESSES = { node: '127.201.2.1', haproxy: '127.201.2.2', ws: '127.201.2.3', 'ws-slabs': '127.201.2.4' } as const;
const SESSIONS = 100;
const PASSWORD = 'P@ssw0rd1';
/** LAN rounds (direct and relay in turn) and what each does. */
const ROUNDS = 12;
const WORK: RoundWork = { framesMs: 700, minFrames: 10 };
/** Key-press rounds: a direct and a relay session open on two devices (swapped each round), one key on each in turn. */
const KEY_ROUNDS = 4;
const KEYS = 250;
/** CIRA rounds (tunnel and LAN in turn; the tunnel goes down and up between them). */
const CIRA_ROUNDS = 7;
const CIRA_WORK: RoundWork = { framesMs: 700, minFrames: 5 };
/**
 * CHANNEL_DATA sizes the simulated CIRA device sends: 16 KiB, a size firmware may use, not the
 * simulator's default of uneven pieces of 1 byte to 4 KiB (there to test message boundaries), whose
 * 1,600 messages a frame would load the benchmark's process (where the device runs) rather than the gateway.
 */
const CIRA_DATA_PIECES = [16_384];
/**
 * The CIRA device is a TLS device, as AMT on a network usually is: over the LAN only 16993/16995
 * answer (redirection with TLS), and through its tunnel, itself TLS, it forwards the plain ports too
 * (AMT-NOTES: 16993, 16992, 664, 623, 16995, 16994), so each way carries the screen in one TLS layer.
 */
const CIRA_FORWARDS = [16993, 16992, 16995, 16994];

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const redirection: Benchmark = {
  name: 'redirection',
  title: 'Remote console: KVM relay throughput and latency, 100 KVM + 100 SOL sessions, KVM through CIRA',
  run: (ctx) => inTunedProcess(ctx, measure),
};

async function measure({ workDir, log }: BenchContext): Promise<BenchResult> {
  log('building dist/ if stale: the gateways run as a site runs them, the compiled bin');
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed; the compiled gateway cannot be measured');
  const ciraPort = await freePort();
  const gateway = await startGatewayProcess({
    runner: 'compiled',
    dataDir: workDir,
    plugins: {
      'rest-api': {},
      // 200 sessions held open as the admin: the per-user bounds are lifted for the benchmark.
      redirection: { options: { maxSessionsPerUser: 10_000, maxTicketsPerUser: 1000 } },
      cira: { options: { port: ciraPort, host: '127.0.0.1', keepAliveIntervalSeconds: 5, keepAliveTimeoutSeconds: 15, forwardSettleMs: 50 } },
    },
  });
  const client = new GatewayClient(gateway.url);
  await client.login();
  await client.addCredential('admin', PASSWORD);
  await client.json('POST', '/api/cira/accounts', CIRA_MPS);
  const ca = (await client.json<{ pem: string }>('GET', '/api/cira/certificate')).pem;
  const fleet = await startFleet({ count: SESSIONS, base: BASE, rmcpPort: BENCH_RMCP_PORT, seed: 'bench-redirection', provisioningModes: [1] });
  const ciraFleet = await startFleet({
    count: 1, base: CIRA_BASE, rmcpPort: 0, seed: 'bench-redirection-cira', provisioningModes: [1], ciraLan: true, tlsEvery: 1,
    cira: {
      host: '127.0.0.1', port: ciraPort, username: CIRA_MPS.username, password: CIRA_MPS.password, ca, keepAliveSeconds: 5, reconnectMs: 200,
      dataPieces: CIRA_DATA_PIECES, forwardPorts: CIRA_FORWARDS,
    },
  });
  try {
    await client.scan(`${BASE.replace(/\.1$/, '.1')}-${SESSIONS}`, { timeoutMs: 2000 });
    const devices = await client.json<Array<{ id: string; ipAddress: string; uuid: string | null; connections?: string[] }>>('GET', '/api/devices');
    const idOf = (address: string) => devices.find((d) => d.ipAddress === address)!.id;
    const first = fleet.devices[0]!;

    // On a gateway of its own, stopped before the frame rounds: memory the allocator keeps after a
    // relay's frames would hide what sessions add, and the rounds run on a gateway without the GC
    // probe's flags and without the heap 200 sessions left behind.
    const { memorySteps, healthBare, healthSessions, live } = await sessionsPhase(join(workDir, 'sessions-gateway'), fleet.devices, { base: BASE, password: PASSWORD }, log);

    log(`LAN: ${ROUNDS} rounds, direct RFB and through the relay in turn: full 640x400 frames at 32 bpp for ${WORK.framesMs} ms`);
    const directWay: Way = {
      name: 'direct',
      async open() {
        const rfb = await directKvm(first.address, PASSWORD);
        return { rfb, close: async () => (rfb.stream.destroy(), await waitFree(first, 'kvm')) };
      },
    };
    const relayWay: Way = { name: 'relay', open: () => relayed(client, idOf(first.address), first) };
    const floors: RelayFloor[] = [];
    for (const kind of floorKinds()) floors.push(await startRelayFloor(kind, workDir, FLOOR_ADDRESSES[kind], 16994, { host: first.address, port: 16994 }));
    const floorWays = floors.map(
      (floor): Way => ({
        name: FLOORS[floor.kind].short,
        relay: { name: 'proxy', pid: floor.pid },
        async open() {
          const address = FLOOR_ADDRESSES[floor.kind];
          const rfb = FLOORS[floor.kind].viewer === 'websocket' ? await wsPipeKvm(`ws://${address}:16994/`, PASSWORD) : await directKvm(address, PASSWORD);
          return { rfb, close: async () => (rfb.stream.destroy(), await waitFree(first, 'kvm')) };
        },
      }),
    );
    log(`  and through bare proxy processes in front of the device, the floors of a relay: ${floors.map((f) => f.name).join('; ')}`);
    const lanWays = await alternate([directWay, relayWay, ...floorWays], ROUNDS, WORK, gateway.pid).finally(() => Promise.all(floors.map((f) => f.stop())));
    const [direct, relay, ...floorResults] = lanWays as [WayResult, WayResult, ...WayResult[]];
    log(`key presses: ${KEY_ROUNDS} rounds of ${KEYS} on a direct and ${KEYS} on a relay session, in turn`);
    const directKeys: number[] = [];
    const relayKeys: number[] = [];
    for (let round = 0; round < KEY_ROUNDS; round++) {
      const [toDirect, toRelay] = round % 2 === 0 ? [fleet.devices[1]!, fleet.devices[2]!] : [fleet.devices[2]!, fleet.devices[1]!];
      const d = await directKvm(toDirect.address, PASSWORD);
      const r = await relayed(client, idOf(toRelay.address), toRelay);
      await alternateKeys(d, r.rfb, KEYS, directKeys, relayKeys);
      d.stream.destroy();
      await r.close();
      await waitFree(toDirect, 'kvm');
    }

    const sim = ciraFleet.devices[0]!;
    await sim.cira!.waitFor('connected');
    let ciraId: string | undefined;
    for (let i = 0; i < 200 && !ciraId; i++) {
      ciraId = (await client.json<Array<{ id: string; uuid: string | null; connections?: string[] }>>('GET', '/api/devices')).find((d) => d.uuid === sim.config.uuid && d.connections?.includes('cira'))?.id;
      if (!ciraId) await sleep(100);
    }
    if (!ciraId) throw new Error('the CIRA device never came up');
    // Found on the LAN too (TLS, its certificate pinned), as an operator's scan finds it.
    await client.scan(`${sim.address}-${sim.address.split('.').at(-1)}`, { timeoutMs: 2000 });
    const tunnelDown = async () => {
      if (sim.cira!.status === 'stopped') return;
      await sim.cira!.stop();
      await waitConnections(client, ciraId!, (c) => !c.includes('cira'));
    };
    const tunnelUp = async () => {
      if (sim.cira!.status === 'connected') return;
      sim.cira!.start();
      await sim.cira!.waitFor('connected');
      await waitConnections(client, ciraId!, (c) => c.includes('cira'));
    };
    log(`CIRA: ${CIRA_ROUNDS} rounds, through the tunnel and (tunnel down) over the LAN in turn, frames for ${CIRA_WORK.framesMs} ms`);
    const [tunnel, lan] = (await alternate(
      [
        { name: 'tunnel', prepare: tunnelUp, open: () => relayed(client, ciraId!, sim) },
        { name: 'LAN', prepare: tunnelDown, open: () => relayed(client, ciraId!, sim) },
      ],
      CIRA_ROUNDS,
      CIRA_WORK,
      gateway.pid,
    )) as [WayResult, WayResult];

    const p = (xs: number[], q: number) => percentile(sorted(xs), q);
    const added = (q: number) => (p(relayKeys, q) !== null && p(directKeys, q) !== null ? p(relayKeys, q)! - p(directKeys, q)! : null);
    type Field = 'rssKiB' | 'heapUsed' | 'external' | 'arrayBuffers';
    const [memoryBare, memoryFull] = [memorySteps[0]!, memorySteps.at(-1)!];
    const sessionsPerStep = (2 * SESSIONS) / MEMORY_STEPS;
    const stepsPerSession = (field: Field, unit: number) => memorySteps.slice(1).map((r, i) => (r[field] - memorySteps[i]![field]) / sessionsPerStep / unit);
    const overall = (field: Field, unit: number) => (memoryFull[field] - memoryBare[field]) / (2 * SESSIONS) / unit;
    const rssPerSession = median(stepsPerSession('rssKiB', 1))!;
    const ratios = (a: WayResult, b: WayResult) => `per round pair x${pairRatios(a, b).map((r) => r.toFixed(2)).join(', x')} (median x${median(pairRatios(a, b))?.toFixed(2)})`;
    const figures: Figure[] = [
      { label: `KVM frames through the relay, MB/s (median of ${ROUNDS} rounds)`, unit: 'MB/s', gateway: median(relay.rounds), reference: median(direct.rounds), better: 'higher', note: 'target >= 0.9x; reference: direct RFB to the same device' },
      ...floors.map((floor, i): Figure => ({
        label: `KVM frames through the relay against ${FLOORS[floor.kind].short}, MB/s (median of ${ROUNDS} rounds)`, unit: 'MB/s', gateway: median(relay.rounds), reference: median(floorResults[i]!.rounds), better: 'higher',
        note: `reference: ${floor.name} between the same viewer and device (a floor of a relay in a process of its own); it is x${(median(floorResults[i]!.rounds)! / median(direct.rounds)!).toFixed(3)} of direct`,
      })),
      ...floors.flatMap((floor, i): Figure[] =>
        FLOORS[floor.kind].viewer !== 'websocket'
          ? []
          : [{ label: `KVM frames through ${FLOORS[floor.kind].short} (no gateway), MB/s (median of ${ROUNDS} rounds)`, unit: 'MB/s', gateway: median(floorResults[i]!.rounds), reference: median(direct.rounds), better: 'higher', note: 'the cheapest Node + ws relay serving a WebSocket; reference: direct RFB, as for the relay (target >= 0.9x)' }],
      ),
      { label: `key press to its screen update, p50 ms (${relayKeys.length} each)`, unit: 'ms', gateway: p(relayKeys, 50), reference: p(directKeys, 50), better: 'lower', note: `added ${added(50)?.toFixed(2)} ms (target <= 1 ms)` },
      { label: 'key press to its screen update, p99 ms', unit: 'ms', gateway: p(relayKeys, 99), reference: p(directKeys, 99), better: 'lower', note: `added ${added(99)?.toFixed(2)} ms (target <= 5 ms)` },
      { label: `/api/health p99 with ${live} sessions open (${SESSIONS} KVM + ${SESSIONS} SOL), ms`, unit: 'ms', gateway: healthSessions.p99, reference: healthBare.p99, better: 'lower', note: 'target <= 20 ms; reference: no session open' },
      {
        label: `gateway RSS added per idle session, KiB (after forced GCs; median of ${MEMORY_STEPS} steps of ${sessionsPerStep})`, unit: 'KiB', gateway: Math.round(rssPerSession), better: 'lower',
        note: `target <= 256 KiB; RSS ${memoryBare.rssKiB} -> ${memoryFull.rssKiB} KiB from 0 to ${live} sessions (main thread and ${memoryFull.workers} worker threads collected)`,
      },
      { label: `KVM frames through a CIRA tunnel, MB/s (median of ${CIRA_ROUNDS} rounds)`, unit: 'MB/s', gateway: median(tunnel.rounds), reference: median(lan.rounds), better: 'higher', note: 'target >= 0.8x; reference: the same (TLS) device over the LAN on 16995, same relay' },
    ];
    return {
      name: 'redirection',
      title: redirection.title,
      reference: 'direct RFB / no sessions / LAN, measured in the same run, in alternating rounds',
      figures,
      notes: [
        `relay / direct ${ratios(relay, direct)}; ${floorResults.map((f) => `relay / ${f.name} ${ratios(relay, f)}; ${f.name} / direct ${ratios(f, direct)}`).join('; ')}; tunnel / LAN ${ratios(tunnel, lan)}`,
        `per idle session (after forced GCs), RSS KiB by step of ${sessionsPerStep}: ${stepsPerSession('rssKiB', 1).map((x) => x.toFixed(0)).join(', ')} (median ${rssPerSession.toFixed(1)}; from 0 to ${2 * SESSIONS}: ${overall('rssKiB', 1).toFixed(1)}); ` +
          `JS heap ${overall('heapUsed', 1024).toFixed(1)} KiB (by step: median ${median(stepsPerSession('heapUsed', 1024))!.toFixed(1)}), external ${overall('external', 1024).toFixed(1)} KiB (ArrayBuffers ${overall('arrayBuffers', 1024).toFixed(1)} KiB)`,
        ...[direct, relay, ...floorResults, tunnel, lan].map(describeWay),
        ...viewerCeiling(direct, [relay, ...floorResults.filter((_, i) => FLOORS[floors[i]!.kind].viewer === 'websocket')]),
        `AES-128-GCM in this Node (the TLS of the tunnel and of the LAN way, done once by the device and once by the gateway): ${aesMsPerMb().toFixed(2)} ms of CPU per MB`,
        `key press p50 / p99 / max ms: direct ${[50, 99, 100].map((q) => p(directKeys, q)?.toFixed(2)).join(' / ')}, relay ${[50, 99, 100].map((q) => p(relayKeys, q)?.toFixed(2)).join(' / ')}`,
      ],
    };
  } finally {
    await ciraFleet.stop();
    await fleet.stop();
    await gateway.stop();
  }
}

/** A KVM session through the relay; closing it waits until the device has let the session go. */
async function relayed(client: GatewayClient, deviceId: string, sim: SimDevice): Promise<{ rfb: RfbClient; close(): Promise<void> }> {
  const { ws, rfb } = await relayKvm(client, deviceId);
  return { rfb, close: async () => (ws.close(), await waitFree(sim, 'kvm')) };
}

async function waitConnections(client: GatewayClient, deviceId: string, ok: (connections: string[]) => boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const device = await client.json<{ connections?: string[] }>('GET', `/api/devices/${deviceId}`);
    if (ok(device.connections ?? [])) return;
    await sleep(25);
  }
  throw new Error(`the device's connections did not change in time`);
}

/**
 * The devices and the viewers share this process's one thread, the busiest of every way here; a
 * viewer reading a WebSocket spends more of it per MB than one reading TCP (the ws client copies the
 * messages that span its reads, and collects them). While that thread is the bottleneck, its CPU per
 * MB direct over its CPU per MB behind a WebSocket (the relay and the ws pipes together) bounds any
 * WebSocket relay's ratio in this run, however cheap the relay's own process.
 */
function viewerCeiling(direct: WayResult, behindWebSocket: WayResult[]): string[] {
  const perMb = (ways: WayResult[]) => (ways.reduce((sum, w) => sum + w.benchCpu, 0) * 1000) / ways.reduce((sum, w) => sum + w.megabytes, 0);
  const [d, w] = [perMb([direct]), perMb(behindWebSocket)];
  if (!Number.isFinite(d) || !Number.isFinite(w)) return [];
  return [`benchmark process (devices and viewers, one thread) CPU per MB: direct ${d.toFixed(2)} ms, behind a WebSocket (relay and ws pipes) ${w.toFixed(2)} ms: while it is the busiest process, a relay its viewer reaches over a WebSocket is bounded near x${(d / w).toFixed(2)} of direct`];
}

/** What this Node's OpenSSL spends on AES-128-GCM per MB (TLS 1.3's usual cipher): the floor of a TLS way's cost on this machine. */
function aesMsPerMb(): number {
  const data = randomBytes(1 << 20);
  const cipher = createCipheriv('aes-128-gcm', randomBytes(16), randomBytes(12));
  const t0 = performance.now();
  for (let i = 0; i < 32; i++) cipher.update(data);
  return (performance.now() - t0) / 32;
}
