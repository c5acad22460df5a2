/**
 * `npm run bench -- field`: scans at field conditions. Loopback is the kindest network there is (an
 * address with no host answers with an instant RST, a device in microseconds); a site is the
 * opposite. This benchmark runs in a network namespace of its own (`unshare -n`, loopback up) where
 * nftables drops every packet to a block of addresses, so they are silent as absent hosts are, and
 * the simulated devices answer each HTTP request after 50-400 ms as AMT firmware does. In the same
 * run: tuned nmap over the same range (probing only), and the floor (the gateway's probe window plus
 * the slowest device's serial read, measured by a bare client reading every device at once).
 * The work is done by field-namespace.ts inside the namespace; this file checks what it needs.
 * Sizes: --field-sizes 19,16 (default both).
 */
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Benchmark } from './bench-context.js';
import type { BenchResult } from './bench-result.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const INSIDE = fileURLToPath(new URL('./field-namespace.ts', import.meta.url));

const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

export const field: Benchmark = {
  name: 'field',
  title: 'Field conditions',
  unavailable() {
    if (process.getuid?.() !== 0) return 'needs root: it creates a network namespace (unshare -n) and nftables rules in it; run it as root';
    const missing = ['unshare', 'ip', 'nft', 'nmap'].filter((c) => !has(c));
    if (missing.length) return `needs ${missing.join(', ')} (apt-get install -y util-linux iproute2 nftables nmap)`;
    return undefined;
  },
  async run({ options, workDir, log }) {
    log('building dist/ if stale (the gateway runs compiled, as a site runs it)');
    const build = spawnSync(process.execPath, [`${ROOT}scripts/build.mjs`, '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('npm run build failed; the compiled gateway cannot be measured');
    const args = JSON.stringify({ workDir, sizes: options.fieldSizes });
    const child = spawn('unshare', ['-n', 'sh', '-c', `ip link set lo up && exec "${process.execPath}" --import tsx "${INSIDE}" '${args}'`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) if (line.trim()) log(line);
    });
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    if (code !== 0) throw new Error(`the field benchmark's namespace process exited ${code}`);
    const results = JSON.parse(stdout.trim().split('\n').at(-1)!) as BenchResult[];
    const [first, ...rest] = results;
    // The runner prints one table per benchmark: the other sizes go in as figures of the first.
    return {
      ...first!,
      figures: [...first!.figures, ...rest.flatMap((r) => r.figures)],
      notes: [...first!.notes, ...rest.flatMap((r) => r.notes)],
      title: results.map((r) => r.title).join('; '),
    };
  },
};
