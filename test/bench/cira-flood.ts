/**
 * CIRA floods before sign-in (`npm run bench -- cira-flood`; issue 19): the gateway (rest-api +
 * cira with default options, compiled) against (1) 1,200 connections from 1,200 addresses each
 * declaring a 1 MiB APF message before sign-in and sending all of it but the last byte, and (2) 4
 * connections repeating USERAUTH_REQUEST `none` for 8 s. Reports the gateway's RSS and CPU and
 * /api/health latency (timed from a process of its own) beside the same gateway idle. Run it inside
 * a network namespace of its own (it dials from 127.201.x.y).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Benchmark } from './bench-context.js';
import { declaredMessageFlood, userauthNoneFlood } from './cira-flood-clients.js';
import { freePort } from './free-port.js';
import { startGatewayProcess } from './gateway-process.js';
import { healthLatencyApart } from './health-sampler.js';
import { missingPlugins } from './plugin-availability.js';
import { readCpuSeconds } from './process-rss.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONNECTIONS = 1200;
const DECLARED = 1 << 20;
const NONE_CLIENTS = 4;
const NONE_MS = 8000;

const mibOf = (r: { rssKiB: number } | undefined) => (r ? r.rssKiB / 1024 : null);

export const ciraFlood: Benchmark = {
  name: 'cira-flood',
  title: 'CIRA floods before sign-in',
  unavailable: () => missingPlugins(['rest-api', 'cira']),
  async run({ workDir, log }) {
    const build = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('npm run build failed');
    const ciraPort = await freePort();
    const gateway = await startGatewayProcess({ runner: 'compiled', dataDir: workDir, plugins: { 'rest-api': {}, cira: { options: { port: ciraPort, host: '127.0.0.1' } } } });
    try {
      log('/api/health idle: 5 s');
      const healthIdle = await healthLatencyApart(gateway.url, 5000);
      const idleRss = mibOf(gateway.rss());

      log(`${CONNECTIONS} connections each declaring a ${DECLARED} byte message before sign-in`);
      const healthDuring = healthLatencyApart(gateway.url, 15_000);
      const t0 = performance.now();
      const flood = await declaredMessageFlood(ciraPort, CONNECTIONS, DECLARED);
      const floodS = (performance.now() - t0) / 1000;
      await sleep(1000);
      const floodRss = gateway.rss();
      const healthFlood = await healthDuring;
      const closedByGateway = flood.closedByGateway();
      log(`  ${flood.connected} connected (${closedByGateway} of them closed by the gateway), ${flood.refused} refused, ${floodS.toFixed(1)} s; RSS ${mibOf(floodRss)?.toFixed(0)} MiB (peak ${floodRss ? (floodRss.peakKiB / 1024).toFixed(0) : '?'})`);
      flood.release();
      await sleep(10_000);
      const afterRss = mibOf(gateway.rss());

      log(`${NONE_CLIENTS} connections repeating USERAUTH none for ${NONE_MS / 1000} s`);
      const cpuBefore = readCpuSeconds(gateway.pid);
      const healthNone = healthLatencyApart(gateway.url, NONE_MS);
      const none = await userauthNoneFlood(ciraPort, NONE_CLIENTS, NONE_MS, 2000);
      const cpuAfter = readCpuSeconds(gateway.pid);
      const healthUnderNone = await healthNone;
      const cpu = cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter - cpuBefore : null;
      log(`  ${none.requestsSent} requests sent over ${none.connections} connections, ${none.bytesAnswered} bytes answered, gateway CPU ${cpu?.toFixed(2)} s`);

      return {
        name: 'cira-flood',
        title: 'CIRA floods before sign-in',
        reference: 'the same gateway idle (no CIRA connection)',
        figures: [
          { label: `gateway RSS with ${CONNECTIONS} connections each holding a 1 MiB message but 1 byte, MiB`, unit: 'MiB', gateway: mibOf(floodRss), reference: idleRss, better: 'lower', note: `${flood.connected} connected (${closedByGateway} closed by the gateway before the end), ${flood.refused} refused at connect` },
          { label: 'gateway peak RSS during that flood, MiB', unit: 'MiB', gateway: floodRss ? floodRss.peakKiB / 1024 : null, reference: idleRss, better: 'lower' },
          { label: 'gateway RSS 10 s after those connections closed, MiB', unit: 'MiB', gateway: afterRss, reference: idleRss, better: 'lower' },
          { label: '/api/health p99 during that flood, ms', unit: 'ms', gateway: healthFlood.p99, reference: healthIdle.p99, better: 'lower', note: `p50 ${healthFlood.p50?.toFixed(1)} ms (idle ${healthIdle.p50?.toFixed(1)})` },
          { label: `gateway CPU during ${NONE_CLIENTS} USERAUTH-none floods of ${NONE_MS / 1000} s, CPU-s`, unit: 's', gateway: cpu, better: 'lower', note: `${none.requestsSent} requests written over ${none.connections} connections; ${none.bytesAnswered} bytes answered` },
          { label: '/api/health p99 during the USERAUTH-none floods, ms', unit: 'ms', gateway: healthUnderNone.p99, reference: healthIdle.p99, better: 'lower', note: `p50 ${healthUnderNone.p50?.toFixed(1)} ms` },
        ],
        notes: ['Every connection dials TLS 1.2 from its own 127.201.x.y; the flood clients run in the benchmark process, /api/health is timed from a process of its own.'],
      };
    } finally {
      await gateway.stop();
    }
  },
};
