// `npm run build:server`: compiles core/, plugins/ and workers/ into dist/ (JS + .d.ts) with tsc,
// from a clean dist/ so that no output of a deleted source survives (a stale plugins/<name>/index.js
// would still load as a built-in plugin). dist/web-console, the console's bundle that `npm run
// build:web` writes, is kept: a server rebuild (`prestart`) must not take the console away.
// With --if-stale (`prestart`) it builds only when dist/ is missing or a source file, folder or
// build setting changed after the last build.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
const STAMP = join(DIST, '.build-stamp');
const SOURCES = ['core', 'plugins', 'workers'];
const SETTINGS = ['tsconfig.json', 'tsconfig.build.json', 'package.json'];

function newestChange() {
  let newest = Math.max(...SETTINGS.map((f) => statSync(join(ROOT, f)).mtimeMs));
  const visit = (dir) => {
    newest = Math.max(newest, statSync(dir).mtimeMs);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const dir of SOURCES) visit(join(ROOT, dir));
  return newest;
}

if (process.argv.includes('--if-stale') && existsSync(STAMP) && statSync(STAMP).mtimeMs >= newestChange()) process.exit(0);

const KEEP = new Set(['web-console']);
if (existsSync(DIST)) for (const entry of readdirSync(DIST)) if (!KEEP.has(entry)) rmSync(join(DIST, entry), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const run = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
if (run.status !== 0) {
  process.stderr.write(`build: tsc failed (exit ${run.status ?? run.signal})\n`);
  process.exit(1);
}
writeFileSync(STAMP, `${new Date().toISOString()}\n`);
