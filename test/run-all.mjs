// `npm test`: every *.test.ts under test/ through node:test with tsx. Node 20 does not expand glob
// patterns for --test, so the files are listed here. Extra arguments narrow the run to files whose
// path contains one of them (e.g. `npm test -- rest-api`).
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(join(root, 'test'), { recursive: true })
  .map((entry) => join('test', String(entry)))
  .filter((path) => path.endsWith('.test.ts') && !path.includes('node_modules'))
  .filter((path) => filters.length === 0 || filters.some((f) => path.includes(f)))
  .sort();

if (files.length === 0) {
  console.error(`no test files match ${filters.join(', ')}`);
  process.exit(1);
}
const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=180000', '--test-reporter=spec', ...files], {
  cwd: root,
  stdio: 'inherit',
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
console.log(`running ${files.length} test files: ${files.map((f) => relative('test', f)).join(' ')}`);
