/**
 * `npm run bench -- device-ops`: what one device operation costs the device and its caller, on
 * devices that answer every HTTP request after 200 ms (the field benchmark's simulator, at one
 * latency). The gateway (compiled, as a site runs it) reads and resets the power of a few devices at
 * once through its REST API; each operation is one pass of the device gate (one turn of the device,
 * one connection, the Digest session the last operation left). Beside it, in the same run, a bare
 * client makes the minimal calls of the same operations on one kept-alive connection per device,
 * its Digest session warm: a read is one Get of `CIM_AssociatedPowerManagementService`; a reset is
 * that read (is a reset offered?), `RequestPowerStateChange`, and the read that confirms the state.
 * Figures, after a warm-up of both: device requests per operation (counted by the simulated devices)
 * and the median time of an operation, each beside the bare client's; and the first read of a device
 * after its scan (the gate keeps no Digest session of it yet).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Benchmark } from './bench-context.js';
import type { Figure } from './bench-result.js';
import { listDevices } from './device-list.js';
import { FLEET_BASE, FLEET_PASSWORD, startBenchFleet, type BenchFleet } from './fleet-process.js';
import { GatewayClient } from './gateway-client.js';
import { startGatewayProcess } from './gateway-process.js';
import { classUri, element, envelope, NS, openReferenceSession, type ReferenceSession } from './wsman-reference-client.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Devices operated on at once, each by one operation at a time. */
const DEVICES = 8;
/** Operations of each kind per device (after one that warms the device's session). */
const ROUNDS = 10;
const DELAY_MS = 200;

type Operation = 'read' | 'reset';

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/** What one kind of operation cost over every device and round: device requests per operation, and each operation's milliseconds. */
interface Pass {
  requestsPerOperation: number;
  ms: number[];
}

/** Runs `operation` ROUNDS times on every device at once (one at a time per device), counting the fleet's requests. */
async function pass(fleet: BenchFleet, devices: number, operation: (device: number) => Promise<void>): Promise<Pass> {
  await fleet.resetCounters();
  const ms: number[] = [];
  await Promise.all(
    Array.from({ length: devices }, async (_, device) => {
      for (let round = 0; round < ROUNDS; round++) {
        const started = performance.now();
        await operation(device);
        ms.push(performance.now() - started);
      }
    }),
  );
  const counters = await fleet.counters();
  return { requestsPerOperation: counters.requests / (devices * ROUNDS), ms };
}

/** The bare client's operations: the minimal calls on its session. */
function bareOperations(session: ReferenceSession) {
  const read = async (): Promise<number[]> => {
    const xml = await session.send(envelope(`${NS.transfer}/Get`, 'CIM_AssociatedPowerManagementService'));
    const state = element(xml, 'PowerState');
    if (state === null) throw new Error('the bare read found no PowerState');
    return [...xml.matchAll(/<(?:\w+:)?AvailableRequestedPowerStates>(\d+)</g)].map((m) => Number(m[1]));
  };
  const change = async (powerState: number): Promise<void> => {
    const input = `<p:RequestPowerStateChange_INPUT xmlns:p="${classUri('CIM_PowerManagementService')}"><p:PowerState>${powerState}</p:PowerState><p:ManagedElement><a:Address>http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous</a:Address><a:ReferenceParameters><w:ResourceURI>${classUri('CIM_ComputerSystem')}</w:ResourceURI><w:SelectorSet><w:Selector Name="CreationClassName">CIM_ComputerSystem</w:Selector><w:Selector Name="Name">ManagedSystem</w:Selector></w:SelectorSet></a:ReferenceParameters></p:ManagedElement></p:RequestPowerStateChange_INPUT>`;
    const xml = await session.send(envelope(`${classUri('CIM_PowerManagementService')}/RequestPowerStateChange`, 'CIM_PowerManagementService', input));
    if (element(xml, 'ReturnValue') !== '0') throw new Error('the bare reset was refused');
  };
  return {
    read: async () => void (await read()),
    async reset() {
      if (!(await read()).includes(10)) throw new Error('the device offers no reset');
      await change(10);
      await read();
    },
  };
}

export const deviceOps: Benchmark = {
  name: 'device-ops',
  title: `Device operations: power read and reset on devices answering after ${DELAY_MS} ms`,
  async run({ workDir, log }) {
    log('building dist/ if stale (the gateway runs compiled, as a site runs it)');
    const build = spawnSync(process.execPath, [`${ROOT}scripts/build.mjs`, '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('npm run build failed; the compiled gateway cannot be measured');
    const fleet = await startBenchFleet(DEVICES, { responseDelayMs: [DELAY_MS, DELAY_MS], rmcpPort: 0, seed: 'device-ops' });
    const gateway = await startGatewayProcess({ dataDir: workDir, runner: 'compiled', plugins: { 'rest-api': {}, 'power-mgmt': {} } });
    try {
      const client = new GatewayClient(gateway.url);
      await client.login();
      await client.addCredential('admin', FLEET_PASSWORD);
      const scanned = await client.scan(`${fleet.firstAddress}-${fleet.lastAddress.split('.').at(-1)}`, { timeoutMs: 2000 });
      if (scanned.scan.found !== DEVICES) throw new Error(`the scan found ${scanned.scan.found} of ${DEVICES} devices`);
      const byAddress = new Map((await listDevices(client)).map((d) => [d.ipAddress, d.id]));
      const addresses = Array.from({ length: DEVICES }, (_, i) => `${FLEET_BASE.slice(0, FLEET_BASE.lastIndexOf('.'))}.${i + 1}`);
      const ids = addresses.map((a) => byAddress.get(a)!);
      const call = async (method: string, device: number, body?: unknown) => {
        const res = await client.request(method, `/api/power/${ids[device]}`, body);
        const text = await res.text();
        if (res.status !== 200) throw new Error(`${method} /api/power answered ${res.status}: ${text.slice(0, 300)}`);
      };
      const gatewayOps: Record<Operation, (device: number) => Promise<void>> = {
        read: (device) => call('GET', device),
        reset: (device) => call('POST', device, { action: 'reset' }),
      };

      log('cold: the first power read of each device after the scan');
      await fleet.resetCounters();
      await Promise.all(ids.map((_, device) => gatewayOps.read(device)));
      const coldRequests = (await fleet.counters()).requests / DEVICES;
      // Warm, as a running gateway is (its code compiled by V8, its pools started), as the bare client is.
      log('warming up: a few reads and resets of each device, not counted');
      await Promise.all(ids.map(async (_, device) => {
        for (let i = 0; i < 3; i++) await gatewayOps.read(device);
        await gatewayOps.reset(device);
      }));
      const gatewayPasses = {} as Record<Operation, Pass>;
      for (const op of ['read', 'reset'] as const) {
        log(`gateway: ${DEVICES} devices x ${ROUNDS} power ${op}s`);
        gatewayPasses[op] = await pass(fleet, DEVICES, gatewayOps[op]);
      }

      log('bare client: the same operations, one kept-alive connection per device, its session warmed first');
      const sessions = addresses.map((a) => openReferenceSession(a, 16992, 'admin', FLEET_PASSWORD));
      const bare = sessions.map(bareOperations);
      try {
        await Promise.all(bare.map((b) => b.read()));
        const barePasses = {} as Record<Operation, Pass>;
        for (const op of ['read', 'reset'] as const) barePasses[op] = await pass(fleet, DEVICES, (device) => bare[device]![op]());
        const figures: Figure[] = [];
        for (const op of ['read', 'reset'] as const) {
          const g = gatewayPasses[op];
          const b = barePasses[op];
          figures.push(
            { label: `power ${op}: device requests per operation (warm Digest session)`, unit: '', gateway: round(g.requestsPerOperation, 2), reference: round(b.requestsPerOperation, 2), better: 'lower', note: op === 'read' ? 'target <= 1' : 'target <= 3' },
            { label: `power ${op}: median time of an operation`, unit: 'ms', gateway: Math.round(median(g.ms)), reference: Math.round(median(b.ms)), better: 'lower', note: 'target <= 1.25x' },
          );
        }
        figures.push({ label: 'power read: device requests, first read after the scan (the gate keeps no session of it yet)', unit: '', gateway: round(coldRequests, 2), reference: null, better: 'lower' });
        return {
          name: 'device-ops',
          title: this.title,
          reference: `a bare client making the minimal calls on one kept-alive connection per device, its Digest session warm (test/bench/device-ops.ts); ${DEVICES} devices at once, ${ROUNDS} operations of each kind per device`,
          figures,
          notes: [
            `Every device answers each HTTP request after ${DELAY_MS} ms; the gateway runs compiled with rest-api and power-mgmt, its REST calls made from this process.`,
            'A reset is confirmed by the state read after it; the simulated device stays on through a reset, so one confirming read suffices for both.',
          ],
        };
      } finally {
        for (const s of sessions) s.close();
      }
    } finally {
      await gateway.stop();
      await fleet.stop();
    }
  },
};

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
