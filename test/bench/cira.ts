/**
 * 7. CIRA (`npm run bench -- cira`, `--cira-devices N`): see cira-scale.ts (N devices dialing in:
 * time to all authenticated, RSS with idle tunnels, /api/health under their keep-alives), run twice:
 * TLS in the gateway (Node's TLS), and HAProxy in front of the gateway (both processes' RSS; skipped
 * without haproxy), and cira-latency.ts (a WS-Management read through a tunnel beside the same read
 * over direct TCP, and dead-tunnel detection). Targets from issue 14 are in the notes beside the
 * figures; its 400 MiB target for 10,000 idle tunnels is withdrawn for Node's TLS (issue 19).
 */
import { mkdirSync } from 'node:fs';
import type { Benchmark } from './bench-context.js';
import type { Figure } from './bench-result.js';
import { ciraLatency, KEEPALIVE } from './cira-latency.js';
import { haproxyAvailable } from './cira-haproxy-front.js';
import { ciraScale, type ScaleFigures } from './cira-scale.js';
import { missingPlugins } from './plugin-availability.js';

export const cira: Benchmark = {
  name: 'cira',
  title: 'CIRA tunnels',
  unavailable: () => missingPlugins(['rest-api', 'cira', 'power-mgmt']),
  async run({ options, workDir, log }) {
    const n = options.ciraDevices;
    mkdirSync(`${workDir}/scale`);
    mkdirSync(`${workDir}/haproxy`);
    mkdirSync(`${workDir}/latency`);
    const rampMs = options.ciraRampS * 1000;
    const scale = await ciraScale(`${workDir}/scale`, n, log, 'gateway', rampMs);
    const behind = haproxyAvailable() ? await ciraScale(`${workDir}/haproxy`, n, log, 'haproxy', rampMs) : null;
    if (!behind) log('haproxy is not installed: HAProxy + gateway not measured (apt-get install -y haproxy)');
    const latency = await ciraLatency(`${workDir}/latency`, log);
    const detectBound = (KEEPALIVE.intervalS + KEEPALIVE.timeoutS + 1) * 1000;
    const count = n.toLocaleString('en-US');
    const figures: Figure[] = [
      { label: `${count} devices: all tunnels authenticated and up, s from the first dial`, unit: 's', gateway: scale.authenticatedS, better: 'lower', note: `target <= 60 s; first dials spread over ${options.ciraRampS} s` },
      { label: `${count} devices: all read through their tunnels (firmware, state, hostname), s`, unit: 's', gateway: scale.readS, better: 'lower' },
      { label: `gateway RSS with ${count} idle tunnels on Node's TLS, MiB`, unit: 'MiB', gateway: scale.idleRssMiB, reference: scale.bareRssMiB, better: 'lower', note: 'reference: the same gateway before any tunnel; the 400 MiB target is withdrawn for Node\'s TLS' },
      { label: `gateway RSS attributable to ${count} idle tunnels (after - before), MiB`, unit: 'MiB', gateway: scale.idleRssMiB !== null && scale.bareRssMiB !== null ? scale.idleRssMiB - scale.bareRssMiB : null, better: 'lower', note: 'includes the devices the tunnels added to the device list' },
      { label: `the ${count} simulated devices' process RSS (TLS clients), MiB`, unit: 'MiB', gateway: scale.fleetRssMiB, better: 'lower' },
      ...haproxyFigures(count, scale, behind),
      { label: '/api/health p50 under keep-alives, ms', unit: 'ms', gateway: scale.healthLoaded.p50, reference: scale.healthIdle.p50, better: 'lower' },
      { label: '/api/health p99 under keep-alives, ms', unit: 'ms', gateway: scale.healthLoaded.p99, reference: scale.healthIdle.p99, better: 'lower', note: 'target <= 20 ms' },
      { label: 'power-state read (WS-Man over Digest) p50, ms: tunnel vs direct TCP', unit: 'ms', gateway: latency.tunnelP50, reference: latency.directP50, better: 'lower', note: 'target ratio <= 1.3' },
      { label: 'power-state read p99, ms: tunnel vs direct TCP', unit: 'ms', gateway: latency.tunnelP99, reference: latency.directP99, better: 'lower' },
      {
        label: '/api/health p99 while 16 devices are read back to back through their tunnels, ms',
        unit: 'ms',
        gateway: latency.healthUnderReads.p99,
        reference: latency.healthUnderDirectReads.p99,
        better: 'lower',
        note: `reference: the same reads over direct TCP (worker pool); ${latency.loadReadsPerS} vs ${latency.directLoadReadsPerS} reads/s; tunnels idle: p99 ${latency.healthIdle.p99?.toFixed(2) ?? '?'} ms`,
      },
      {
        label: `dead tunnel (silent) noticed, slowest of ${latency.detectionMs.length}, ms`,
        unit: 'ms',
        gateway: latency.detectionMs.length ? Math.max(...latency.detectionMs) : null,
        reference: detectBound,
        better: 'lower',
        note: `keep-alive ${KEEPALIVE.intervalS} s + timeout ${KEEPALIVE.timeoutS} s + 1 s; each: ${latency.detectionMs.map((ms) => Math.round(ms)).join(', ')}`,
      },
    ];
    return {
      name: 'cira',
      title: 'CIRA tunnels',
      reference: '/api/health with no tunnel; the same read over direct TCP; interval + timeout + 1 s',
      figures,
      notes: [
        behind
          ? `HAProxy: config/haproxy-cira.cfg (TLS in HAProxy, PROXY v2 + APF to the gateway's unix socket), ${behind.haproxyProcesses} HAProxy process(es) (two descriptors per tunnel each, within this machine's hard descriptor limit), the same devices, keep-alives and reads; HAProxy's RSS summed over its processes.`
          : 'HAProxy: not measured (haproxy not installed).',
        `Scale: gateway with rest-api + cira (keep-alive every 10 s, so ${count} tunnels send ~${Math.round(n / 10).toLocaleString('en-US')} keep-alives/s); devices in their own process, each dialing TLS 1.2 from its own 127.202.x.y; one device credential stored, so each device is also read through its tunnel after it connects.`,
        'Latency: the same simulated device serves both paths (it listens on the LAN and dials in); each read is one API call. Over TCP the read is a worker-pool task; through the tunnel the same task runs on the main thread over an APF channel (one channel per connection, TLS and APF framing on the main thread), within the cira tunnelOperations bound.',
      ],
    };
  },
};

/** HAProxy + the gateway at the same scale: both processes' RSS, summed and separately, beside the gateway alone on Node's TLS. */
function haproxyFigures(count: string, alone: ScaleFigures, behind: ScaleFigures | null): Figure[] {
  if (!behind) return [];
  const sum = behind.idleRssMiB !== null && behind.haproxyRssMiB !== null ? behind.idleRssMiB + behind.haproxyRssMiB : null;
  return [
    { label: `HAProxy + gateway RSS with ${count} idle tunnels (summed), MiB`, unit: 'MiB', gateway: sum, reference: alone.idleRssMiB, better: 'lower', note: "reference: the gateway alone on Node's TLS, same run" },
    { label: `  gateway behind HAProxy (plain APF over PROXY v2), MiB`, unit: 'MiB', gateway: behind.idleRssMiB, reference: behind.bareRssMiB, better: 'lower', note: 'reference: the same gateway before any tunnel' },
    { label: `  HAProxy (TLS for ${count} tunnels, ${behind.haproxyProcesses} process(es)), MiB`, unit: 'MiB', gateway: behind.haproxyRssMiB, better: 'lower' },
    { label: `${count} devices through HAProxy: all tunnels up, s from the first dial`, unit: 's', gateway: behind.authenticatedS, reference: alone.authenticatedS, better: 'lower', note: "reference: TLS in the gateway" },
    { label: '/api/health p99 under keep-alives behind HAProxy, ms', unit: 'ms', gateway: behind.healthLoaded.p99, reference: alone.healthLoaded.p99, better: 'lower', note: "reference: TLS in the gateway" },
  ];
}
