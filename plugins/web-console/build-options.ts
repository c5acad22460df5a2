/** The one esbuild configuration of the console, shared by `npm run build:web` and the in-memory build at start. */
import { join } from 'node:path';
import type { BuildOptions } from 'esbuild';
import { packagePath } from '../../core/assets/package-root.js';

/** URL prefix of the bundle's files: content-hashed names, cached for a year. */
export const ASSET_PREFIX = '/console-assets/';

export const defaultBundleDir = () => packagePath('dist', 'web-console');
export const clientDir = () => packagePath('plugins', 'web-console', 'client');
export const clientEntry = () => join(clientDir(), 'main.tsx');

export function esbuildOptions(outdir: string): BuildOptions {
  return {
    entryPoints: [clientEntry()],
    bundle: true,
    minify: true,
    sourcemap: false,
    format: 'esm',
    platform: 'browser',
    target: ['chrome100', 'firefox100', 'safari15'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    outdir,
    publicPath: ASSET_PREFIX,
    metafile: false,
    logLevel: 'silent',
    legalComments: 'linked',
  };
}

/** The application shell: no data, no inline script (the CSP forbids it), the hashed assets. */
export function indexHtml(script: string, style: string | undefined): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>amt-gateway console</title>
<link rel="icon" href="data:,">
${style ? `<link rel="stylesheet" href="${ASSET_PREFIX}${style}">\n` : ''}<script type="module" src="${ASSET_PREFIX}${script}"></script>
</head>
<body><div id="app"></div><noscript>The amt-gateway console needs JavaScript.</noscript></body>
</html>
`;
}
