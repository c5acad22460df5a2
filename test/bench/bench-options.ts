/** Sizes and settings of a benchmark run: full size by default, smaller by flags while developing. */
import { parseArgs } from 'node:util';
import { insideNetworks, parseCidr } from '../../core/net/ipv4.js';
import { BENCH_NETWORK } from './gateway-process.js';

export interface BenchOptions {
  /** Simulated devices (sweep, interrogation, hub). */
  devices: number;
  /** The sweep's range (a CIDR inside 127.200.0.0/14). */
  range: string;
  /** Devices stored for the API, SOAP and start-up benchmarks. */
  stored: number;
  /** SignalR clients connected during the hub's scan. */
  hubClients: number;
  /** The range the hub benchmark scans (a CIDR inside 127.200.0.0/14). */
  hubRange: string;
  /** Concurrent connections of the HTTP load (autocannon). */
  connections: number;
  /** Seconds of load per endpoint. */
  durationS: number;
  /** Start-ups measured per data directory (the median is reported). */
  startupRuns: number;
  /** Simulated devices that dial in over CIRA (cira). */
  ciraDevices: number;
  /** Unprovisioned machines activated at once (activation). */
  activationMachines: number;
  /** How the sweep's gateway runs: compiled (as a site runs it, the default) or under tsx (as before issue 21's engine work). */
  sweepRunner: 'compiled' | 'tsx';
  /** Sizes of the field benchmark: 19 (a /19 slice) and/or 16 (a /16). */
  fieldSizes: number[];
  /** Seconds over which the CIRA devices' first dials are spread (a fleet powering on). */
  ciraRampS: number;
  /** Also write the results as Markdown to this file. */
  markdown: string | undefined;
  /** Benchmarks named on the command line (none: all). */
  names: string[];
}

export const USAGE = `Usage: npm run bench -- [name ...] [options]
  names: sweep interrogation api soap hub startup cira cira-flood console audit-metrics redirection field (default: all, in that order)
  --devices N        simulated devices (default 1000)
  --range CIDR       sweep range inside ${BENCH_NETWORK} (default 127.200.0.0/16)
  --sweep-runner R   the sweep's gateway: compiled (default, as a site runs it; builds dist/ if stale) or tsx
  --stored N         devices stored for api, soap, startup (default 100000)
  --hub-clients N    SignalR clients during the hub scan (default 1000)
  --hub-range CIDR   range the hub benchmark scans (default 127.200.0.0/20)
  --connections N    concurrent HTTP connections of the load (default 50)
  --duration S       seconds of load per endpoint (default 10)
  --startup-runs N   start-up rounds per case, median reported (default 9)
  --cira-devices N   simulated devices dialing in over CIRA (default 10000)
  --activation-machines N   unprovisioned machines activated at once (default 1000)
  --field-sizes LIST field benchmark sizes: 19 (a /19 slice), 16 (a /16), or 19,16 (default)
  --cira-ramp S      their first dials spread over S seconds (default 30; longer on a busy machine)
  --markdown FILE    also write the result tables as Markdown
Environment: BENCH_CPU_PROF=DIR writes a CPU profile of each gateway process to DIR (summarise with
  tsx test/bench/profile-summary.ts DIR/*.cpuprofile); BENCH_SITE='{json}' is merged into every gateway's
  site file (to try other settings, e.g. '{"plugins":{"rest-api":{"options":{"scan":{"rmcpWindowMs":0}}}}}').`;

function positive(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
  return n;
}

const NETWORK = parseCidr(BENCH_NETWORK)!;

function benchRange(value: string | undefined, name: string, fallback: string): string {
  const text = value ?? fallback;
  const cidr = parseCidr(text);
  if (!cidr || !insideNetworks(cidr.first, cidr.last, [NETWORK])) throw new Error(`--${name} must be a CIDR inside ${BENCH_NETWORK}, not ${text}`);
  return text;
}

function fieldSizes(value: string | undefined): number[] {
  const sizes = (value ?? '19,16').split(',').map((v) => Number(v.trim()));
  if (sizes.length === 0 || sizes.some((n) => n !== 19 && n !== 16)) throw new Error('--field-sizes must list 19 and/or 16');
  return sizes;
}

function sweepRunner(value: string | undefined): 'compiled' | 'tsx' {
  if (value === undefined || value === 'compiled' || value === 'tsx') return value ?? 'compiled';
  throw new Error('--sweep-runner must be compiled or tsx');
}

export function parseBenchOptions(argv: string[]): BenchOptions | 'help' {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      devices: { type: 'string' }, range: { type: 'string' }, stored: { type: 'string' }, 'hub-clients': { type: 'string' },
      'hub-range': { type: 'string' }, connections: { type: 'string' }, duration: { type: 'string' }, 'startup-runs': { type: 'string' },
      'cira-devices': { type: 'string' }, 'activation-machines': { type: 'string' }, 'cira-ramp': { type: 'string' }, 'field-sizes': { type: 'string' }, 'sweep-runner': { type: 'string' }, markdown: { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  return {
    devices: positive(values.devices, 'devices', 1000),
    range: benchRange(values.range, 'range', '127.200.0.0/16'),
    stored: positive(values.stored, 'stored', 100_000),
    hubClients: positive(values['hub-clients'], 'hub-clients', 1000),
    hubRange: benchRange(values['hub-range'], 'hub-range', '127.200.0.0/20'),
    connections: positive(values.connections, 'connections', 50),
    durationS: positive(values.duration, 'duration', 10),
    startupRuns: positive(values['startup-runs'], 'startup-runs', 9),
    ciraDevices: positive(values['cira-devices'], 'cira-devices', 10_000),
    activationMachines: positive(values['activation-machines'], 'activation-machines', 1_000),
    fieldSizes: fieldSizes(values['field-sizes']),
    sweepRunner: sweepRunner(values['sweep-runner']),
    ciraRampS: positive(values['cira-ramp'], 'cira-ramp', 30),
    markdown: values.markdown,
    names: positionals,
  };
}
