/**
 * CIRA latency: one simulated device that both listens on the LAN and dials in over CIRA, one gateway
 * process (rest-api, power-mgmt, cira; keep-alive every 1 s, timeout 2 s). The same power-state read
 * (WS-Management over Digest) through the tunnel and over direct TCP, in alternating rounds; and how
 * long a tunnel that goes silent takes to be noticed (the device offline in the device list).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { startFleet } from '../sim/index.js';
import { until } from '../helpers/poll.js';
import { freePort } from './free-port.js';
import { GatewayClient } from './gateway-client.js';
import { startGatewayProcess } from './gateway-process.js';
import { percentile } from './latency.js';
import { CIRA_MPS } from './cira-scale.js';
import { healthLatencyApart } from './health-sampler.js';

const BASE = '127.203.0.1';
/** Devices that only dial in, read at once to load the main thread while /api/health is timed. */
const LOAD_BASE = '127.203.1.1';
const LOAD_DEVICES = 16;
const LOAD_MS = 6_000;
const ROUND = 100;
const ROUNDS = 3;
const DETECTIONS = 3;
export const KEEPALIVE = { intervalS: 1, timeoutS: 2 };

interface DeviceView {
  id: string;
  uuid: string | null;
  online: boolean;
  connections?: string[];
  hostname: string | null;
}

export interface LatencyFigures {
  tunnelP50: number | null;
  directP50: number | null;
  tunnelP99: number | null;
  directP99: number | null;
  detectionMs: number[];
  /** /api/health with the tunnels idle, and while every load device is read through its tunnel back to back. */
  healthIdle: { p50: number | null; p99: number | null };
  healthUnderReads: { p50: number | null; p99: number | null };
  /** Tunnelled power reads completed per second during that load. */
  loadReadsPerS: number;
  /** The reference: /api/health while the same devices are read the same way over direct TCP (worker pool). */
  healthUnderDirectReads: { p50: number | null; p99: number | null };
  directLoadReadsPerS: number;
  /** HTTP requests, 401s and APF channels the device saw over all reads of each path. */
  exchanges: Record<'tunnel' | 'direct', { requests: number; unauthorized: number; channels: number }>;
}

/** How long `check` took to hold (polled every 20 ms, bounded). */
async function timeUntil(what: string, check: () => Promise<boolean>): Promise<number> {
  const t0 = performance.now();
  await until(what, check, 20_000);
  return performance.now() - t0;
}

export async function ciraLatency(workDir: string, log: (line: string) => void): Promise<LatencyFigures> {
  const ciraPort = await freePort();
  const gateway = await startGatewayProcess({
    dataDir: workDir,
    plugins: {
      'rest-api': {},
      'power-mgmt': {},
      cira: { options: { port: ciraPort, host: '127.0.0.1', keepAliveIntervalSeconds: KEEPALIVE.intervalS, keepAliveTimeoutSeconds: KEEPALIVE.timeoutS, forwardSettleMs: 50 } },
    },
  });
  const client = new GatewayClient(gateway.url);
  await client.login();
  await client.addCredential('admin', 'P@ssw0rd1');
  await client.json('POST', '/api/cira/accounts', CIRA_MPS);
  const ca = (await client.json<{ pem: string }>('GET', '/api/cira/certificate')).pem;
  const fleet = await startFleet({
    count: 1,
    base: BASE,
    rmcpPort: 0,
    seed: 'cira-latency',
    ciraLan: true,
    cira: { host: '127.0.0.1', port: ciraPort, username: CIRA_MPS.username, password: CIRA_MPS.password, ca, keepAliveSeconds: KEEPALIVE.intervalS, reconnectMs: 200 },
  });
  const sim = fleet.devices[0]!;
  try {
    const find = async () => (await client.json<DeviceView[]>('GET', '/api/devices')).find((d) => d.uuid === sim.config.uuid);
    await until('the device is read through its tunnel', async () => !!(await find())?.hostname, 20_000);
    const id = (await find())!.id;
    const via = async (kind: 'cira' | 'none') => timeUntil(`connections ${kind}`, async () => {
      const d = await client.json<DeviceView>('GET', `/api/devices/${id}`);
      return kind === 'cira' ? !!d.connections?.includes('cira') : !d.connections?.includes('cira');
    });
    const reads = async (samples: number[]) => {
      for (let i = 0; i < ROUND; i++) {
        const t = performance.now();
        const res = await client.request('GET', `/api/power/${id}`);
        const body = await res.text();
        if (res.status !== 200) throw new Error(`power read answered ${res.status}: ${body.slice(0, 300)}`);
        samples.push(performance.now() - t);
      }
    };
    const tunnel: number[] = [];
    const direct: number[] = [];
    const exchanges = { tunnel: { requests: 0, unauthorized: 0, channels: 0 }, direct: { requests: 0, unauthorized: 0, channels: 0 } };
    const counted = async (kind: 'tunnel' | 'direct', samples: number[]) => {
      const [before, channels] = [sim.counters(), sim.cira!.counters.channelsOpened];
      await reads(samples);
      const after = sim.counters();
      exchanges[kind].requests += after.requests - before.requests;
      exchanges[kind].unauthorized += after.unauthorized - before.unauthorized;
      exchanges[kind].channels += sim.cira!.counters.channelsOpened - channels;
    };
    log(`power-state reads of one device: ${ROUNDS} rounds of ${ROUND} through its tunnel, then ${ROUND} over TCP with the tunnel down`);
    for (let round = 0; round < ROUNDS; round++) {
      sim.cira!.start();
      await via('cira');
      await counted('tunnel', tunnel);
      await sim.cira!.stop();
      await via('none');
      await counted('direct', direct);
    }
    tunnel.sort((a, b) => a - b);
    direct.sort((a, b) => a - b);
    const load = await healthUnderTunnelReads(client, gateway.url, ciraPort, ca, log);

    log(`dead-tunnel detection: the device goes silent (socket open, no keep-alives), ${DETECTIONS} times`);
    const detectionMs: number[] = [];
    for (let i = 0; i < DETECTIONS; i++) {
      sim.cira!.setFault('none');
      sim.cira!.start();
      await via('cira');
      await sleep(300 + i * 370);
      sim.cira!.setFault('silent');
      detectionMs.push(await via('none'));
      await sim.cira!.stop();
    }
    sim.cira!.setFault('none');
    return {
      tunnelP50: percentile(tunnel, 50),
      directP50: percentile(direct, 50),
      tunnelP99: percentile(tunnel, 99),
      directP99: percentile(direct, 99),
      detectionMs,
      ...load,
      exchanges,
    };
  } finally {
    await fleet.stop();
    await gateway.stop();
  }
}

/**
 * The main thread's share of tunnelled I/O: /api/health timed with the load devices' tunnels idle,
 * while each of their devices is read back to back through its tunnel (on the main thread), and,
 * as the reference, while the same devices are read the same way over direct TCP (in the worker
 * pool) with their tunnels down. /api/health is timed from a process of its own: this one also
 * runs the simulated devices, whose TLS work would otherwise count as the gateway's latency. One loop per device: reads of one device take turns in its
 * sign-in memory.
 */
async function healthUnderTunnelReads(client: GatewayClient, url: string, ciraPort: number, ca: string, log: (line: string) => void) {
  const fleet = await startFleet({
    count: LOAD_DEVICES,
    base: LOAD_BASE,
    rmcpPort: 0,
    seed: 'cira-latency-load',
    ciraLan: true,
    cira: { host: '127.0.0.1', port: ciraPort, username: CIRA_MPS.username, password: CIRA_MPS.password, ca, keepAliveSeconds: KEEPALIVE.intervalS, reconnectMs: 200 },
  });
  try {
    const uuids = new Set(fleet.devices.map((d) => d.config.uuid));
    const loadDevices = async () => (await client.json<DeviceView[]>('GET', '/api/devices')).filter((d) => d.uuid && uuids.has(d.uuid));
    let ids: string[] = [];
    await until(`the ${LOAD_DEVICES} load devices are read through their tunnels`, async () => {
      ids = (await loadDevices()).filter((d) => d.hostname && d.connections?.includes('cira')).map((d) => d.id);
      return ids.length === LOAD_DEVICES;
    }, { timeoutMs: 60_000, intervalMs: 200 });
    const readAll = async () => {
      let reads = 0;
      let stop = false;
      const loops = ids.map(async (id) => {
        while (!stop) {
          const res = await client.request('GET', `/api/power/${id}`);
          const body = await res.text();
          if (res.status !== 200) throw new Error(`power read answered ${res.status}: ${body.slice(0, 300)}`);
          reads++;
        }
      });
      const t0 = performance.now();
      const health = await healthLatencyApart(url, LOAD_MS);
      stop = true;
      await Promise.all(loops);
      return { health, readsPerS: Math.round(reads / ((performance.now() - t0) / 1000)) };
    };
    log(`/api/health: ${LOAD_MS / 1000} s each with ${LOAD_DEVICES} idle tunnels, while their devices are read back to back through the tunnels, and over direct TCP with the tunnels down`);
    const healthIdle = await healthLatencyApart(url, LOAD_MS);
    const tunnelled = await readAll();
    await Promise.all(fleet.devices.map((d) => d.cira!.stop()));
    await until('the load devices\' tunnels are down', async () => (await loadDevices()).every((d) => !d.connections?.includes('cira')), { timeoutMs: 20_000, intervalMs: 100 });
    const direct = await readAll();
    return { healthIdle, healthUnderReads: tunnelled.health, loadReadsPerS: tunnelled.readsPerS, healthUnderDirectReads: direct.health, directLoadReadsPerS: direct.readsPerS };
  } finally {
    await fleet.stop();
  }
}
