/**
 * The redirection benchmark's sessions phase: 100 KVM + 100 SOL sessions held open on a gateway of
 * their own, /api/health with none and with all open, and the gateway's memory after forced GCs at
 * every step (see redirection.ts).
 */
import { mkdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayClient } from './gateway-client.js';
import { startGatewayProcess, type BenchGateway } from './gateway-process.js';
import { healthLatencyApart } from './health-sampler.js';
import { relayKvm, relaySocket } from './redirection-clients.js';
import { median } from './redirection-rounds.js';

/**
 * The gateway's memory after forced GCs, once settled: readings 300 ms apart (at most MAX_READINGS)
 * until the last SETTLED_OF span at most SETTLED_KIB of RSS (a gateway that just started or just
 * relayed gives memory back for a while); the median of those, field by field, and how many it took.
 */
const MAX_READINGS = 8;
/** Steps in which the idle sessions are opened (memory is read after each). */
export const MEMORY_STEPS = 10;
const SETTLED_OF = 3;
const SETTLED_KIB = 128;
type MemoryReading = Awaited<ReturnType<BenchGateway['memoryAfterGc']>> & { readings: number };

async function memoryReadings(gateway: BenchGateway): Promise<MemoryReading> {
  const readings: Array<Awaited<ReturnType<BenchGateway['memoryAfterGc']>>> = [];
  for (;;) {
    readings.push(await gateway.memoryAfterGc());
    const last = readings.slice(-SETTLED_OF);
    const rss = last.map((r) => r.rssKiB);
    if ((last.length === SETTLED_OF && Math.max(...rss) - Math.min(...rss) <= SETTLED_KIB) || readings.length >= MAX_READINGS) break;
    await sleep(300);
  }
  const last = readings.slice(-SETTLED_OF);
  const mid = (field: 'rssKiB' | 'heapUsed' | 'external' | 'arrayBuffers') => median(last.map((r) => r[field]))!;
  return { rssKiB: mid('rssKiB'), heapUsed: mid('heapUsed'), external: mid('external'), arrayBuffers: mid('arrayBuffers'), workers: Math.min(...last.map((r) => r.workers)), readings: readings.length };
}

export async function waitFree(sim: { redirection: { open: Set<string> } }, mode: string): Promise<void> {
  for (let i = 0; i < 200 && sim.redirection.open.has(mode); i++) await sleep(10);
}

export type SimDevice = { redirection: { open: Set<string> } };

export type FleetDevice = SimDevice & { address: string };

/**
 * 100 KVM + 100 SOL sessions held open on a gateway of their own (rest-api and redirection, with the
 * GC probe): /api/health p99 with none and with all of them open, and the gateway's memory after
 * forced GCs at each of MEMORY_STEPS steps. The gateway is stopped before this returns.
 */
export async function sessionsPhase(dataDir: string, devices: readonly FleetDevice[], { base, password }: { base: string; password: string }, log: (line: string) => void) {
  const count = devices.length;
  mkdirSync(dataDir, { recursive: true });
  const gateway = await startGatewayProcess({ runner: 'compiled', dataDir, gcProbe: true, plugins: { 'rest-api': {}, redirection: {} } });
  try {
    const client = new GatewayClient(gateway.url);
    await client.login();
    await client.addCredential('admin', password);
    await client.scan(`${base}-${count}`, { timeoutMs: 2000 });
    const listed = await client.json<Array<{ id: string; ipAddress: string }>>('GET', '/api/devices');
    const idOf = (address: string) => listed.find((d) => d.ipAddress === address)!.id;
    log(`health and memory (a gateway of its own): no session open, then ${count} KVM + ${count} SOL sessions held open (memory read after forced GCs, every ${count / MEMORY_STEPS} devices)`);
    const open: Array<{ ws: import('ws').WebSocket }> = [];
    const healthBare = await healthLatencyApart(gateway.url, 5_000);
    const openSessions = async (some: readonly FleetDevice[]) => {
      for (const sim of some) {
        const id = idOf(sim.address);
        const kvm = await relayKvm(client, id);
        kvm.rfb.requestUpdate(false);
        await kvm.rfb.readUpdate();
        open.push(kvm);
        open.push(await relaySocket(client, id, 'sol'));
      }
      await sleep(1_000);
    };
    // One KVM and one SOL session opened and closed first, so the code and pools they use once are in place.
    await openSessions(devices.slice(0, 1));
    for (const s of open.splice(0)) s.ws.close();
    await waitFree(devices[0]!, 'kvm');
    await waitFree(devices[0]!, 'sol');
    await sleep(2_000);
    // In steps, each read after forced GCs: the median step is the figure, so that memory the
    // allocator gives back now and then (tens of MiB at once, sessions or not) does not decide it.
    const memorySteps = [await memoryReadings(gateway)];
    const perStep = count / MEMORY_STEPS;
    for (let step = 0; step < MEMORY_STEPS; step++) {
      await openSessions(devices.slice(step * perStep, (step + 1) * perStep));
      memorySteps.push(await memoryReadings(gateway));
    }
    await sleep(2_000);
    const healthSessions = await healthLatencyApart(gateway.url, 5_000);
    const live = (await client.json<unknown[]>('GET', '/api/redirection/sessions')).length;
    for (const s of open) s.ws.close();
    for (const device of devices) await waitFree(device, 'kvm');
    for (const device of devices) await waitFree(device, 'sol');
    return { memorySteps, healthBare, healthSessions, live };
  } finally {
    await gateway.stop();
  }
}
