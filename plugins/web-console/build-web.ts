/** `npm run build:web`: bundles the console into dist/web-console (or the folder given as argument). */
import { resolve } from 'node:path';
import { defaultBundleDir } from './build-options.js';
import { buildBundle } from './console-bundle.js';

const outdir = resolve(process.argv[2] ?? defaultBundleDir());
const bundle = await buildBundle(outdir, true);
const bytes = [...bundle.assets.values()].reduce((n, a) => n + a.body.length, 0);
// On stderr: `npm pack --json` runs this build (prepack) and its stdout must stay the JSON.
process.stderr.write(`web console: ${bundle.assets.size + 1} files, ${Math.round(bytes / 1024)} KiB, in ${outdir}\n`);
