/**
 * The start-up benchmark's reference server (fixtures/bare-koa-server.ts), bundled with the settings
 * scripts/build.mjs bundles the gateway with, and started as the bin starts the gateway.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binSettings, spawnUntilServing, type ServingProcess } from './gateway-process.js';
import { freePort } from './free-port.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Bundles the reference into `dir` and returns the bundle's path. */
export async function bundleReference(dir: string): Promise<string> {
  const { build } = await import('esbuild');
  const outfile = join(dir, 'bare-koa-server.mjs');
  await build({
    absWorkingDir: ROOT,
    entryPoints: [join(ROOT, 'test/bench/fixtures/bare-koa-server.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    banner: { js: "import { createRequire as __gatewayRequire } from 'node:module'; const require = __gatewayRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  return outfile;
}

/** Starts the bundled reference with the bin's node flags and environment; resolves once it serves. */
export async function startReference(bundle: string, logDir: string): Promise<ServingProcess & { stop(): Promise<void> }> {
  const port = await freePort();
  const bin = binSettings(ROOT);
  const started = await spawnUntilServing(process.execPath, [...bin.flags, bundle], {
    cwd: ROOT,
    env: { ...process.env, ...bin.env, PORT: String(port) },
    logFile: join(logDir, `reference-${port}.log`),
    url: `http://127.0.0.1:${port}`,
    what: 'the reference server',
  });
  return {
    ...started,
    async stop() {
      if (started.exitCode() === undefined) started.child.kill('SIGTERM');
      await started.exited;
    },
  };
}
