/**
 * `npm test` runs two files at once in one network namespace: two files whose simulated fleets
 * listen on the same loopback addresses fail at random with EADDRINUSE. Each file's fleets get
 * addresses of their own; this test finds the files that share any.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
/** A fleet that listens: `startFleet({ count, base })` or a harness's `fleet: { count, base }`, both on one line. */
const FLEET = /(?:startFleet\(\{|fleet: \{)[^\n]*?count: (\d+|[A-Z_]+)[^\n]*?base: '(127\.\d+\.\d+\.\d+)'/g;

const toNumber = (address: string) => address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);

/** The addresses a fleet of `count` from `base` may take: consecutive, skipping .0 and .255, so a little more than `count`. */
function span(base: string, count: number): [number, number] {
  const start = toNumber(base);
  return [start, start + count + 2 * Math.ceil(count / 254) + 1];
}

function fleetsOf(file: string): Array<{ file: string; base: string; from: number; to: number }> {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(FLEET)].map(([, count, base]) => {
    // A named count (a constant of the file) is taken as 254: the file then owns its whole /24.
    const n = /^\d+$/.test(count!) ? Number(count) : 254;
    const [from, to] = span(base!, n);
    return { file, base: base!, from, to };
  });
}

test('no two test files start simulated devices on the same loopback addresses', () => {
  const files = readdirSync(root, { recursive: true })
    .map(String)
    .filter((path) => path.endsWith('.test.ts') && !path.includes('node_modules'));
  const fleets = files.flatMap(fleetsOf);
  assert.ok(fleets.length > 20, `found only ${fleets.length} fleets: the pattern no longer matches how tests start them`);
  const clashes: string[] = [];
  for (const [i, a] of fleets.entries()) {
    for (const b of fleets.slice(i + 1)) {
      if (a.file !== b.file && a.from < b.to && b.from < a.to) clashes.push(`${a.file} (${a.base}) and ${b.file} (${b.base})`);
    }
  }
  assert.deepEqual(clashes, []);
});
