/**
 * Remote console (issue 22): KVM relay throughput against a direct RFB connection to the same
 * simulated device, the latency the relay adds to a key press and its screen update, 100 KVM plus
 * 100 SOL sessions held open (/api/health p99, gateway RSS per idle session), and KVM through a CIRA
 * tunnel against the same device over the LAN. The gateway runs as its own process.
 *   npm run bench -- redirection
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Benchmark } from './bench-context.js';
import type { Figure } from './bench-result.js';
import { startFleet } from '../sim/index.js';
import { freePort } from './free-port.js';
import { GatewayClient } from './gateway-client.js';
import { BENCH_RMCP_PORT, startGatewayProcess } from './gateway-process.js';
import { healthLatencyApart } from './health-sampler.js';
import { percentile } from './latency.js';
import { CIRA_MPS } from './cira-scale.js';
import { directKvm, frameThroughput, keyLatencies, relayKvm, relaySocket } from './redirection-clients.js';

const BASE = '127.201.0.1';
const CIRA_BASE = '127.201.1.1';
const SESSIONS = 100;
const PASSWORD = 'P@ssw0rd1';
const FRAMES = 20;
const ROUNDS = 3;
const KEYS = 100;

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => percentile(sorted(xs), 50);

export const redirection: Benchmark = {
  name: 'redirection',
  title: 'Remote console: KVM relay throughput and latency, 100 KVM + 100 SOL sessions, KVM through CIRA',
  async run({ workDir, log }) {
    const ciraPort = await freePort();
    const gateway = await startGatewayProcess({
      dataDir: workDir,
      plugins: {
        'rest-api': {},
        redirection: {},
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
      count: 1, base: CIRA_BASE, rmcpPort: 0, seed: 'bench-redirection-cira', provisioningModes: [1], ciraLan: true,
      cira: { host: '127.0.0.1', port: ciraPort, username: CIRA_MPS.username, password: CIRA_MPS.password, ca, keepAliveSeconds: 5, reconnectMs: 200 },
    });
    try {
      await client.scan(`${BASE.replace(/\.1$/, '.1')}-${SESSIONS}`, { timeoutMs: 2000 });
      const devices = await client.json<Array<{ id: string; ipAddress: string; uuid: string | null; connections?: string[] }>>('GET', '/api/devices');
      const idOf = (address: string) => devices.find((d) => d.ipAddress === address)!.id;
      const first = fleet.devices[0]!;

      log(`throughput: ${ROUNDS} rounds of ${FRAMES} full 640x400 frames at 32 bpp, direct then through the relay`);
      const direct: number[] = [];
      const relayed: number[] = [];
      const directLatency: number[] = [];
      const relayLatency: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const d = await directKvm(first.address, PASSWORD);
        direct.push(await frameThroughput(d, FRAMES));
        await keyLatencies(d, KEYS, directLatency);
        d.stream.destroy();
        await waitFree(first, 'kvm');
        const r = await relayKvm(client, idOf(first.address));
        relayed.push(await frameThroughput(r.rfb, FRAMES));
        await keyLatencies(r.rfb, KEYS, relayLatency);
        r.ws.close();
        await waitFree(first, 'kvm');
      }

      log('health and RSS: no session open, then 100 KVM + 100 SOL sessions held open');
      await sleep(2_000);
      const healthBare = await healthLatencyApart(gateway.url, 5_000);
      const rssBare = gateway.rss()?.rssKiB ?? null;
      const open: Array<{ ws: import('ws').WebSocket }> = [];
      for (const sim of fleet.devices) {
        const id = idOf(sim.address);
        const kvm = await relayKvm(client, id);
        kvm.rfb.requestUpdate(false);
        await kvm.rfb.readUpdate();
        open.push(kvm);
        open.push(await relaySocket(client, id, 'sol'));
      }
      await sleep(3_000);
      const healthSessions = await healthLatencyApart(gateway.url, 5_000);
      const rssSessions = gateway.rss()?.rssKiB ?? null;
      const live = (await client.json<unknown[]>('GET', '/api/redirection/sessions')).length;
      for (const s of open) s.ws.close();

      log('KVM through the CIRA tunnel, then the same device over the LAN with the tunnel down');
      const sim = ciraFleet.devices[0]!;
      await sim.cira!.waitFor('connected');
      let ciraId: string | undefined;
      for (let i = 0; i < 200 && !ciraId; i++) {
        ciraId = (await client.json<Array<{ id: string; uuid: string | null; connections?: string[] }>>('GET', '/api/devices')).find((d) => d.uuid === sim.config.uuid && d.connections?.includes('cira'))?.id;
        if (!ciraId) await sleep(100);
      }
      if (!ciraId) throw new Error('the CIRA device never came up');
      const tunnel: number[] = [];
      const lan: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const t = await relayKvm(client, ciraId);
        tunnel.push(await frameThroughput(t.rfb, FRAMES));
        t.ws.close();
        await waitFree(sim, 'kvm');
      }
      await sim.cira!.stop();
      for (let i = 0; i < 100; i++) {
        const d = await client.json<{ connections?: string[] }>('GET', `/api/devices/${ciraId}`);
        if (!d.connections?.includes('cira')) break;
        await sleep(100);
      }
      for (let round = 0; round < ROUNDS; round++) {
        const l = await relayKvm(client, ciraId);
        lan.push(await frameThroughput(l.rfb, FRAMES));
        l.ws.close();
        await waitFree(sim, 'kvm');
      }

      const p = (xs: number[], q: number) => percentile(sorted(xs), q);
      const added = (q: number) => (p(relayLatency, q) !== null && p(directLatency, q) !== null ? p(relayLatency, q)! - p(directLatency, q)! : null);
      const perSession = rssBare !== null && rssSessions !== null ? (rssSessions - rssBare) / (2 * SESSIONS) : null;
      const figures: Figure[] = [
        { label: 'KVM frames through the relay, MB/s (median of rounds)', unit: 'MB/s', gateway: median(relayed), reference: median(direct), better: 'higher', note: 'target >= 0.9x; reference: direct RFB to the same device' },
        { label: 'key press to its screen update, p50 ms', unit: 'ms', gateway: p(relayLatency, 50), reference: p(directLatency, 50), better: 'lower', note: `added ${added(50)?.toFixed(2)} ms (target <= 1 ms)` },
        { label: 'key press to its screen update, p99 ms', unit: 'ms', gateway: p(relayLatency, 99), reference: p(directLatency, 99), better: 'lower', note: `added ${added(99)?.toFixed(2)} ms (target <= 5 ms)` },
        { label: `/api/health p99 with ${live} sessions open (${SESSIONS} KVM + ${SESSIONS} SOL), ms`, unit: 'ms', gateway: healthSessions.p99, reference: healthBare.p99, better: 'lower', note: 'target <= 20 ms; reference: no session open' },
        { label: 'gateway RSS added per idle session, KiB', unit: 'KiB', gateway: perSession === null ? null : Math.round(perSession), better: 'lower', note: `target <= 256 KiB; RSS ${rssBare} -> ${rssSessions} KiB` },
        { label: 'KVM frames through a CIRA tunnel, MB/s', unit: 'MB/s', gateway: median(tunnel), reference: median(lan), better: 'higher', note: 'target >= 0.8x; reference: the same device over the LAN, same relay' },
      ];
      return {
        name: 'redirection',
        title: redirection.title,
        reference: 'direct RFB / no sessions / LAN, measured in the same run',
        figures,
        notes: [`throughput rounds direct ${direct.map((x) => x.toFixed(0)).join(', ')}, relay ${relayed.map((x) => x.toFixed(0)).join(', ')}, tunnel ${tunnel.map((x) => x.toFixed(0)).join(', ')}, LAN ${lan.map((x) => x.toFixed(0)).join(', ')} MB/s`],
      };
    } finally {
      await ciraFleet.stop();
      await fleet.stop();
      await gateway.stop();
    }
  },
};

async function waitFree(sim: { redirection: { open: Set<string> } }, mode: string): Promise<void> {
  for (let i = 0; i < 200 && sim.redirection.open.has(mode); i++) await sleep(10);
}
