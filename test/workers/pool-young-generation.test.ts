/**
 * The worker threads get the young generation the pool asks for even when the process runs with the
 * bin's `--max-semi-space-size` (a V8 flag that would otherwise win over a worker's resourceLimits),
 * and the main thread keeps the small one the flag gives it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { promisify } from 'node:util';

const CHILD = new URL('./fixtures/pool-new-space-child.ts', import.meta.url).pathname;

/** The node flags on the bin's shebang line (core/main.ts), e.g. `--max-semi-space-size=4`. */
function binFlags(): string[] {
  const shebang = readFileSync(new URL('../../core/main.ts', import.meta.url), 'utf8').split('\n', 1)[0]!;
  return shebang.slice(shebang.indexOf(' node ') + ' node '.length).split(/\s+/).filter((flag) => flag.startsWith('--'));
}

it('worker threads have their own young generation under the bin flags; the main thread keeps the bin one', { timeout: 120_000 }, async () => {
  const flags = binFlags();
  const semi = flags.find((flag) => flag.startsWith('--max-semi-space-size='));
  assert.ok(semi, `the bin sets --max-semi-space-size (${flags.join(' ')})`);
  const binSemiMiB = Number(semi.split('=')[1]);
  const { stdout } = await promisify(execFile)(process.execPath, [...flags, '--import', 'tsx', CHILD], { timeout: 110_000 });
  const { worker, main } = JSON.parse(stdout) as { worker: number; main: number };
  // New space is two semi-spaces: the main thread's stays within the bin's flag, the workers' grows past it.
  assert.ok(main <= 2 * binSemiMiB, `main thread new space ${main} MiB`);
  assert.ok(worker > 2 * binSemiMiB, `worker new space ${worker} MiB, not held to the bin's ${2 * binSemiMiB} MiB`);
});
