/**
 * 4. SOAP: IsMachineConnected requests per second beside /api/health under the same load and beside
 * strong-soap's own server answering the same requests (the library's ceiling), and
 * EnumerateConnectedMachines + Pull of 100,000 connected machines at MaxElements 1,000 beside the
 * REST API paging the same 100,000 devices 1,000 at a time.
 */
import type { Benchmark } from './bench-context.js';
import type { Figure } from './bench-result.js';
import { freePort } from './free-port.js';
import { GatewayClient } from './gateway-client.js';
import { startGatewayProcess } from './gateway-process.js';
import { measureInterleaved, type LoadResult } from './http-load.js';
import { loadFigures } from './api.js';
import { missingPlugins, presencePlugin } from './plugin-availability.js';
import { seedDevices } from './seed-devices.js';
import { enumerateAll, isMachineConnected, soapHeaders, waitForSoap } from './soap-client.js';
import { cpuPerRequest } from './cpu-per-request.js';
import { startStrongSoapServer } from './strong-soap-process.js';

const PAGE = 1000;
const CPU_REQUESTS = 20_000;
const READER = { username: 'bench-soap-reader', password: 'bench-reader-password-1' };

async function restPaging(client: GatewayClient, total: number): Promise<number> {
  let items = 0;
  for (let offset = 0; offset < total; offset += PAGE) items += (await client.json<unknown[]>('GET', `/api/devices?offset=${offset}&limit=${PAGE}`)).length;
  return items;
}

export const soap: Benchmark = {
  name: 'soap',
  title: 'SOAP',
  unavailable: () => missingPlugins(['rest-api', 'soap-mps']),
  async run({ options, workDir, log }) {
    log(`seeding ${options.stored} connected devices`);
    const devices = await seedDevices(workDir, options.stored);
    const soapPort = await freePort();
    const gateway = await startGatewayProcess({ dataDir: workDir, plugins: { 'rest-api': {}, ...presencePlugin(), 'soap-mps': { options: { port: soapPort } } } });
    try {
      const client = new GatewayClient(gateway.url);
      await client.login();
      await client.json('POST', '/api/users', { username: READER.username, password: READER.password, permissions: ['mps:read'] });
      const basic = `Basic ${Buffer.from(`${READER.username}:${READER.password}`).toString('base64')}`;
      const serviceUrl = `http://127.0.0.1:${soapPort}/MPSInterfaceService`;
      await waitForSoap(serviceUrl, basic);

      const load = { connections: options.connections, durationS: options.durationS };
      const names = Array.from({ length: 1000 }, (_, i) => {
        const d = devices[Math.floor(Math.random() * devices.length)]!;
        return [d.hostname!, `${d.hostname}.${d.domain}`, d.ipAddress, d.uuid!][i % 4]!;
      });
      const connectedLoad = { method: 'POST', headers: soapHeaders('IsMachineConnected', basic), bodies: names.map(isMachineConnected), ...load };
      const bare = await startStrongSoapServer();
      let loads: Record<'health' | 'connected' | 'strongSoap', LoadResult>;
      let cpu: Record<'health' | 'connected' | 'strongSoap', number>;
      try {
        log(`IsMachineConnected (1,000 names in turn), /api/health, strong-soap's own server: ${options.connections} connections, ${options.durationS} s each in 2 rounds`);
        loads = await measureInterleaved({
          health: { url: `${gateway.url}/api/health`, ...load },
          connected: { url: serviceUrl, ...connectedLoad },
          strongSoap: { url: bare.serviceUrl, ...connectedLoad },
        });
        log(`server CPU per request: ${CPU_REQUESTS.toLocaleString('en-US')} requests to each`);
        const fixed = { connections: options.connections, requests: CPU_REQUESTS };
        cpu = {
          connected: await cpuPerRequest({ url: serviceUrl, pid: gateway.pid, ...connectedLoad, ...fixed }),
          strongSoap: await cpuPerRequest({ url: bare.serviceUrl, pid: bare.pid, ...connectedLoad, ...fixed }),
          health: await cpuPerRequest({ url: `${gateway.url}/api/health`, pid: gateway.pid, ...fixed }),
        };
      } finally {
        await bare.stop();
      }
      const { health, connected, strongSoap } = loads;

      log(`EnumerateConnectedMachines + Pull at MaxElements ${PAGE}`);
      let t = performance.now();
      const enumerated = await enumerateAll(serviceUrl, basic, PAGE);
      const soapSeconds = (performance.now() - t) / 1000;
      if (enumerated.items !== options.stored) throw new Error(`the enumeration gave ${enumerated.items} machines, ${options.stored} are connected`);
      log(`reference: GET /api/devices?offset=..&limit=${PAGE} over the same devices`);
      t = performance.now();
      const paged = await restPaging(client, options.stored);
      const restSeconds = (performance.now() - t) / 1000;

      const figures: Figure[] = [
        ...loadFigures('IsMachineConnected', connected, health, 'reference: /api/health'),
        {
          label: "IsMachineConnected beside strong-soap's own server, same requests",
          unit: 'req/s',
          gateway: connected.rps,
          reference: strongSoap.rps,
          better: 'higher',
          note: `reference: soap.listen on bare node:http, no auth or guard (p50 ${strongSoap.p50.toFixed(1)} ms, p99 ${strongSoap.p99.toFixed(0)} ms)`,
        },
        { label: 'IsMachineConnected: server CPU per request', unit: 'µs', gateway: cpu.connected, reference: cpu.strongSoap, better: 'lower', note: "reference: strong-soap's own server" },
        { label: 'IsMachineConnected: server CPU per request beside /api/health', unit: 'µs', gateway: cpu.connected, reference: cpu.health, better: 'lower' },
        { label: `EnumerateConnectedMachines + ${enumerated.pulls} Pulls (MaxElements ${PAGE}), total`, unit: 's', gateway: soapSeconds, reference: restSeconds, better: 'lower', note: `reference: ${Math.ceil(paged / PAGE)} × GET /api/devices?limit=${PAGE}` },
        { label: 'machines per second enumerated', unit: 'items/s', gateway: enumerated.items / soapSeconds, reference: paged / restSeconds, better: 'higher' },
      ];
      const notes = [
        `${options.stored.toLocaleString('en-US')} devices seeded online; remote-monitor is the benchmark's presence fixture (test/bench/fixtures/bench-presence-plugin.ts), which calls a stored online device connected, so no machine is probed.`,
        `SOAP callers authenticate with HTTP Basic (a gateway user with mps:read; the plugin remembers a verified header for 30 s, so scrypt runs once). IsMachineConnected: autocannon, ${options.connections} connections, 1,000 different SystemNames (hostnames, FQDNs, addresses, UUIDs) in turn, ${options.durationS} s in two rounds interleaved with /api/health under the same load, the reference for rate and latency.`,
        "strong-soap's own server (test/bench/strong-soap-server.ts, its own process): its documented soap.listen on a bare node:http server, the same WSDL, an IsMachineConnected that answers true, prettyResponse off as in the gateway; loaded with the same requests, interleaved with the two above. What strong-soap alone does per request (parse, dispatch, serialise), so the gap above it is the gateway's own work.",
        `Server CPU per request: user + system time of the serving process (/proc/<pid>/stat) over ${CPU_REQUESTS.toLocaleString('en-US')} requests at ${options.connections} connections, after ${(CPU_REQUESTS / 10).toLocaleString('en-US')} to warm up; it hardly depends on what else runs on the machine, unlike requests per second.`,
        `Enumeration: one client, requests in sequence, EnumerateConnectedMachines then Pull until EndOfSequence (${enumerated.items.toLocaleString('en-US')} names); the reference pages the same devices through the REST API in ${PAGE}s, each page a full Device object rather than a name.`,
      ];
      return { name: 'soap', title: `SOAP MPSInterfaceService: ${options.stored.toLocaleString('en-US')} connected machines`, reference: 'GET /api/health under the same load (rate, latency); REST paging of the same devices (enumeration)', figures, notes };
    } finally {
      await gateway.stop();
    }
  },
};
