/** The console's files in memory: read from the built bundle, or built at start when it is missing. */
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { clientDir, clientEntry, esbuildOptions, indexHtml } from './build-options.js';

export interface ConsoleAsset {
  body: Buffer;
  type: string;
}

export interface ConsoleBundle {
  index: Buffer;
  /** By file name, as served under ASSET_PREFIX. */
  assets: Map<string, ConsoleAsset>;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

export async function readBundle(dir: string): Promise<ConsoleBundle | null> {
  if (!existsSync(join(dir, 'index.html'))) return null;
  const assets = new Map<string, ConsoleAsset>();
  for (const name of await readdir(dir)) {
    const type = TYPES[extname(name)];
    if (type) assets.set(name, { body: await readFile(join(dir, name)), type });
  }
  return { index: await readFile(join(dir, 'index.html')), assets };
}

/**
 * In a checkout (the client sources are beside the code): whether a client source changed after
 * the bundle in `dir` was written. An installed package has no sources, so its bundle is never stale.
 */
export async function bundleIsStale(dir: string): Promise<boolean> {
  const sources = clientDir();
  if (!existsSync(sources)) return false;
  const built = (await stat(join(dir, 'index.html'))).mtimeMs;
  for (const entry of await readdir(sources, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && (await stat(join(entry.parentPath, entry.name))).mtimeMs > built) return true;
  }
  return false;
}

/** Builds the bundle with esbuild; `write` also writes it to `outdir` (the build:web script). */
export async function buildBundle(outdir: string, write = false): Promise<ConsoleBundle> {
  if (!existsSync(clientEntry())) throw new Error(`web-console: no built bundle in ${outdir} and no client sources to build one; run npm run build:web`);
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch {
    throw new Error(`web-console: no built bundle in ${outdir} and esbuild is not installed; run npm run build:web`);
  }
  const result = await esbuild.build({ ...esbuildOptions(outdir), write: false });
  const assets = new Map<string, ConsoleAsset>();
  for (const file of result.outputFiles) {
    const name = basename(file.path);
    const type = TYPES[extname(name)];
    if (type) assets.set(name, { body: Buffer.from(file.contents), type });
  }
  const names = [...assets.keys()];
  const script = names.find((n) => n.endsWith('.js'));
  if (!script) throw new Error('web-console: the build produced no script');
  const index = Buffer.from(indexHtml(script, names.find((n) => n.endsWith('.css'))));
  if (write) {
    const { mkdir, rm, writeFile } = await import('node:fs/promises');
    await rm(outdir, { recursive: true, force: true });
    await mkdir(outdir, { recursive: true });
    for (const [name, asset] of assets) await writeFile(join(outdir, name), asset.body);
    await writeFile(join(outdir, 'index.html'), index);
  }
  return { index, assets };
}
