/**
 * 6. Start-up: from spawning the gateway process to its first 200 from /api/health, with 100,000
 * devices in the store, beside the same start-up with an empty store (median of several runs each).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Benchmark } from './bench-context.js';
import type { Figure } from './bench-result.js';
import { startGatewayProcess, type PluginChoice } from './gateway-process.js';
import { percentile } from './latency.js';
import { everyAvailablePlugin } from './plugin-availability.js';
import { mib } from './process-rss.js';
import { seedDevices } from './seed-devices.js';

interface Starts {
  ms: number[];
  peakMiB: number[];
}

/** One warm-up start (first-start work: admin user, tsx cache), then `runs` measured ones. */
async function measureStarts(dataDir: string, plugins: Record<string, PluginChoice>, runs: number): Promise<Starts> {
  const out: Starts = { ms: [], peakMiB: [] };
  for (let i = 0; i <= runs; i++) {
    const gateway = await startGatewayProcess({ dataDir, plugins });
    const rss = gateway.rss();
    await gateway.stop();
    if (i === 0) continue;
    out.ms.push(gateway.startMs);
    out.peakMiB.push(mib(rss?.peakKiB ?? 0));
  }
  return out;
}

const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);

export const startup: Benchmark = {
  name: 'startup',
  title: 'Start-up',
  async run({ options, workDir, log }) {
    const full = join(workDir, 'full');
    const empty = join(workDir, 'empty');
    mkdirSync(full);
    mkdirSync(empty);
    log(`seeding ${options.stored} devices`);
    await seedDevices(full, options.stored);
    const plugins = everyAvailablePlugin();
    // A SOAP listener on port 0: each start takes a free port.
    log(`start-ups with ${options.stored} devices stored (1 warm-up + ${options.startupRuns})`);
    const withDevices = await measureStarts(full, plugins, options.startupRuns);
    log(`start-ups with an empty store (1 warm-up + ${options.startupRuns})`);
    const without = await measureStarts(empty, plugins, options.startupRuns);
    const figures: Figure[] = [
      { label: 'process start to serving, median', unit: 'ms', gateway: median(withDevices.ms), reference: median(without.ms), better: 'lower', note: `runs: ${withDevices.ms.map((m) => m.toFixed(0)).join(', ')} ms (empty: ${without.ms.map((m) => m.toFixed(0)).join(', ')})` },
      { label: 'peak RSS when serving, median', unit: 'MiB', gateway: median(withDevices.peakMiB), reference: median(without.peakMiB), better: 'lower' },
    ];
    const notes = [
      `Plugins: ${Object.entries(plugins).map(([name, p]) => (p.path ? `${name} (benchmark fixture)` : name)).join(', ')}. Each start is \`node --import tsx core/main.ts --config <site file>\`, timed from spawn to the first 200 from GET /api/health (polled every 5 ms); the warm-up start of each store is not counted.`,
      `The reference is the same gateway, same plugins, starting on an empty store in the same run: the difference is what ${options.stored.toLocaleString('en-US')} stored devices cost at start.`,
    ];
    return { name: 'startup', title: `Start-up: ${options.stored.toLocaleString('en-US')} devices in the store`, reference: 'the same start-up with an empty store', figures, notes };
  },
};
