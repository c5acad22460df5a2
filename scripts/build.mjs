// `npm run build:server`: builds dist/ from a clean folder, so that no output of a deleted source
// survives (a stale plugins/<name>/index.js would still load as a built-in plugin):
// - tsc (tsconfig.build.json) type-checks core/, compat/, plugins/, workers/ and writes the .d.ts files;
// - esbuild bundles the code: one module per entry point (the bin, the public APIs, each plugin's
//   typed entry point, each built-in plugin, each worker task) and shared chunks, with the dependencies that load plainly from a
//   bundle inlined. A start then reads a few files instead of resolving, reading and lexing ~600
//   modules one by one (about a quarter of the start's CPU). Dependencies that find files beside
//   their own code, run native code or start threads from their own files stay external.
// - the validators of what every start checks (the configuration, the built-in plugins' options) are
//   compiled here, ajv standalone code bundled in place of core/validation/precompiled-validators.ts
//   (scripts/precompile-validators.ts): a start then compiles none of them (~70 ms of its CPU).
// dist/web-console, the console's bundle that `npm run build:web` writes, is kept: a server
// rebuild (`npm start`'s staleness check) must not take the console away.
// With --if-stale (`npm start`) it builds only when dist/ is missing or a source file, folder or
// build setting changed after the last build.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
const STAMP = join(DIST, '.build-stamp');
const SOURCES = ['core', 'compat', 'plugins', 'workers'];
const SETTINGS = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'scripts/build.mjs', 'scripts/precompile-validators.ts'];
const PRECOMPILED_STUB = join(ROOT, 'core/validation/precompiled-validators.ts');
const EXTERNAL = [
  'classic-level', // native addon found beside its own files
  'level',
  'piscina', // starts worker threads from its own files
  'strong-soap', // reads its locale and WSDL files beside its code (and loads lazily)
  'koa2-swagger-ui', // reads its page template beside its code (and loads lazily)
  'swagger-ui-dist', // served as files
  'undici', // loaded lazily in the main thread; large
  'tsx',
  'tsx/*', // only a checkout's worker threads load it, for .ts tasks
  'esbuild', // web-console's in-memory build, a checkout's dev tool (imported only when the bundle is missing)
];

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

function entryPoints() {
  const plugins = readdirSync(join(ROOT, 'plugins')).filter((name) => existsSync(join(ROOT, 'plugins', name, 'index.ts')));
  const tasks = readdirSync(join(ROOT, 'workers/tasks')).filter((name) => name.endsWith('.ts') && !name.endsWith('-types.ts'));
  return [
    'core/main.ts',
    'core/plugin-api.ts',
    'compat/plugin-api.ts',
    'workers/task-api.ts',
    ...plugins.map((name) => `plugins/${name}/index.ts`),
    // Each plugin's typed entry point (`amt-gateway/<name>`): types only, an empty module at run time.
    ...plugins.filter((name) => existsSync(join(ROOT, 'plugins', name, 'public.ts'))).map((name) => `plugins/${name}/public.ts`),
    ...tasks.map((name) => `workers/tasks/${name}`),
  ];
}

if (process.argv.includes('--if-stale') && existsSync(STAMP) && statSync(STAMP).mtimeMs >= newestChange()) process.exit(0);

const KEEP = new Set(['web-console']);
if (existsSync(DIST)) for (const entry of readdirSync(DIST)) if (!KEEP.has(entry)) rmSync(join(DIST, entry), { recursive: true, force: true });
const require = createRequire(import.meta.url);
const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--emitDeclarationOnly'], { cwd: ROOT, stdio: 'inherit' });
if (tsc.status !== 0) {
  process.stderr.write(`build: tsc failed (exit ${tsc.status ?? tsc.signal})\n`);
  process.exit(1);
}

const precompiledFile = join(DIST, '.precompiled-validators.mjs');
const precompile = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/precompile-validators.ts'), precompiledFile], { cwd: ROOT, stdio: 'inherit' });
if (precompile.status !== 0) {
  process.stderr.write(`build: precompiling the start's validators failed (exit ${precompile.status ?? precompile.signal})\n`);
  process.exit(1);
}
const precompiled = readFileSync(precompiledFile, 'utf8');
rmSync(precompiledFile);
/** Bundles the generated validators in place of the source tree's empty module. */
const precompiledValidators = {
  name: 'precompiled-validators',
  setup(b) {
    b.onLoad({ filter: /precompiled-validators\.ts$/ }, (args) => (args.path === PRECOMPILED_STUB ? { contents: precompiled, loader: 'js', resolveDir: dirname(PRECOMPILED_STUB) } : undefined));
  },
};

const { build } = await import('esbuild');
await build({
  absWorkingDir: ROOT,
  entryPoints: entryPoints(),
  outdir: DIST,
  outbase: '.',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  external: EXTERNAL,
  // Bundled CommonJS dependencies call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __gatewayRequire } from 'node:module'; const require = __gatewayRequire(import.meta.url);" },
  plugins: [precompiledValidators],
  logLevel: 'warning',
});
// The worker entry is plain JS loaded by path (it decides per task whether tsx is needed).
copyFileSync(join(ROOT, 'workers/worker-entry.mjs'), join(DIST, 'workers/worker-entry.mjs'));
writeFileSync(STAMP, `${new Date().toISOString()}\n`);
process.stderr.write(`build: dist/ from ${entryPoints().length} entry points (${relative(ROOT, DIST)}/)\n`);
