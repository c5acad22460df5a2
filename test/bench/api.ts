/**
 * 3. API: GET /api/devices?limit=100 and GET /api/devices/{id} with 100,000 devices stored, under a
 * fixed concurrency, beside the same load on the kernel's /api/health (the framework's ceiling),
 * and the list beside a bare node:http server sending the same bytes.
 */
import type { Benchmark } from './bench-context.js';
import type { Figure } from './bench-result.js';
import { GatewayClient } from './gateway-client.js';
import { startGatewayProcess } from './gateway-process.js';
import { cpuPerRequest } from './cpu-per-request.js';
import { measureInterleaved, type LoadResult } from './http-load.js';
import { seedDevices } from './seed-devices.js';
import { startStaticBody } from './static-body-process.js';

/** The three figures of one endpoint beside the ceiling's. */
export function loadFigures(name: string, r: LoadResult, ceiling: LoadResult, note?: string): Figure[] {
  return [
    { label: `${name}: requests per second`, unit: 'req/s', gateway: r.rps, reference: ceiling.rps, better: 'higher', ...(note ? { note } : {}) },
    { label: `${name}: latency p50`, unit: 'ms', gateway: r.p50, reference: ceiling.p50, better: 'lower' },
    { label: `${name}: latency p99`, unit: 'ms', gateway: r.p99, reference: ceiling.p99, better: 'lower' },
  ];
}

const CPU_REQUESTS = 20_000;

export const api: Benchmark = {
  name: 'api',
  title: 'API',
  async run({ options, workDir, log }) {
    log(`seeding ${options.stored} devices`);
    const t0 = performance.now();
    const devices = await seedDevices(workDir, options.stored);
    const seedSeconds = (performance.now() - t0) / 1000;
    const gateway = await startGatewayProcess({ dataDir: workDir, plugins: { 'rest-api': {} } });
    try {
      const client = new GatewayClient(gateway.url);
      const token = await client.login();
      let t = performance.now();
      const first = await client.request('GET', '/api/devices?limit=100');
      await first.arrayBuffer();
      const firstMs = performance.now() - t;
      t = performance.now();
      await (await client.request('GET', '/api/devices?limit=100')).arrayBuffer();
      const secondMs = performance.now() - t;
      const total = first.headers.get('x-total-count');
      if (Number(total) !== options.stored) throw new Error(`the gateway lists ${total} devices, ${options.stored} were seeded`);

      const pages = Array.from({ length: 100 }, (_, i) => `/api/devices?offset=${Math.floor((i * options.stored) / 100)}&limit=100`);
      const ids = Array.from({ length: 10_000 }, () => `/api/devices/${devices[Math.floor(Math.random() * devices.length)]!.id}`);
      const pageBody = await (await client.request('GET', pages[50]!)).text();
      const bare = await startStaticBody(workDir, pageBody);
      const auth = { authorization: `Bearer ${token}` };
      const load = { connections: options.connections, durationS: options.durationS };
      let r: Record<'health' | 'list' | 'one' | 'bare', LoadResult>;
      let cpu: Record<'health' | 'list' | 'one' | 'bare', number>;
      try {
        log(`/api/health, /api/devices?limit=100, /api/devices/{id}, bare node:http: ${options.connections} connections, ${options.durationS} s each in 2 rounds`);
        r = await measureInterleaved({
          health: { url: `${gateway.url}/api/health`, ...load },
          list: { url: `${gateway.url}/api/devices?limit=100`, headers: auth, paths: pages, ...load },
          one: { url: `${gateway.url}${ids[0]}`, headers: auth, paths: ids, ...load },
          bare: { url: `${bare.url}/api/devices?limit=100`, ...load },
        });
        log(`server CPU per request: ${CPU_REQUESTS.toLocaleString('en-US')} requests to each`);
        const fixed = { connections: options.connections, requests: CPU_REQUESTS };
        cpu = {
          health: await cpuPerRequest({ url: `${gateway.url}/api/health`, pid: gateway.pid, ...fixed }),
          list: await cpuPerRequest({ url: `${gateway.url}/api/devices?limit=100`, pid: gateway.pid, headers: auth, paths: pages, ...fixed }),
          one: await cpuPerRequest({ url: `${gateway.url}${ids[0]}`, pid: gateway.pid, headers: auth, paths: ids, ...fixed }),
          bare: await cpuPerRequest({ url: `${bare.url}/api/devices?limit=100`, pid: bare.pid, ...fixed }),
        };
      } finally {
        await bare.stop();
      }
      const rss = gateway.rss();
      const figures: Figure[] = [
        ...loadFigures('GET /api/devices?limit=100', r.list, r.health),
        { label: `GET /api/devices?limit=100 beside bare node:http sending the same ${(pageBody.length / 1024).toFixed(0)} KiB`, unit: 'req/s', gateway: r.list.rps, reference: r.bare.rps, better: 'higher', note: 'reference: no framework, no auth, no JSON encoding' },
        { label: 'GET /api/devices?limit=100: server CPU per request', unit: 'µs', gateway: cpu.list, reference: cpu.health, better: 'lower', note: 'reference: /api/health' },
        { label: 'GET /api/devices?limit=100: server CPU per request beside bare node:http', unit: 'µs', gateway: cpu.list, reference: cpu.bare, better: 'lower', note: 'same 45 KiB' },
        ...loadFigures('GET /api/devices/{id}', r.one, r.health),
        { label: 'GET /api/devices/{id}: server CPU per request', unit: 'µs', gateway: cpu.one, reference: cpu.health, better: 'lower', note: 'reference: /api/health' },
        { label: 'first GET /api/devices?limit=100 after start (reference: the second)', unit: 'ms', gateway: firstMs, reference: secondMs, better: 'lower', note: 'the first list call sorts the whole registry' },
        { label: 'gateway RSS after the load', unit: 'MiB', gateway: (rss?.rssKiB ?? 0) / 1024, note: `peak ${((rss?.peakKiB ?? 0) / 1024).toFixed(0)} MiB` },
      ];
      const notes = [
        `${options.stored.toLocaleString('en-US')} devices seeded straight into LevelDB in ${seedSeconds.toFixed(1)} s; admin bearer token on every request but /api/health (public); log level warn (no line per request) everywhere.`,
        `autocannon, ${options.connections} connections, in the benchmark process; the gateway in its own process. Each endpoint ran ${options.durationS} s in two rounds of ${Math.round(options.durationS / 2)} s, interleaved with the others (after a 2 s warm-up each), so that a change of machine load hits all alike; p50 is the mean of the rounds, p99 the higher. /api/devices?limit=100 walks 100 pages spread over the list; /api/devices/{id} draws from 10,000 random ids.`,
        `Server CPU per request: user + system time of the serving process (/proc/<pid>/stat) over ${CPU_REQUESTS.toLocaleString('en-US')} requests at ${options.connections} connections, after ${(CPU_REQUESTS / 10).toLocaleString('en-US')} to warm up; it hardly depends on what else runs on the machine, unlike requests per second.`,
        `The bare node:http reference (test/bench/static-body-server.ts, its own process) answers every request with one page of the list, byte for byte: what a server with no framework, no auth and no serialisation does with a body that size under the same load generator.`,
      ];
      return { name: 'api', title: `API: ${options.stored.toLocaleString('en-US')} devices stored`, reference: `the same load on GET /api/health in the same gateway (${r.health.rps.toFixed(0)} req/s), interleaved`, figures, notes };
    } finally {
      await gateway.stop();
    }
  },
};
