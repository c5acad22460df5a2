import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context, Next } from 'koa';
import { dependencyDir } from '../assets/package-root.js';

/** Where the docs page loads Swagger UI from: served locally so /swagger works on isolated networks. */
export const SWAGGER_ASSET_BASE = '/swagger/assets';
export const SWAGGER_ASSET_VERSION = 'ui';

const DIST = dependencyDir('swagger-ui-dist');
const FILES: Record<string, { file: string; type: string }> = {
  'swagger-ui.min.css': { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: 'application/javascript; charset=utf-8' },
  'swagger-ui-standalone-preset.js': { file: 'swagger-ui-standalone-preset.js', type: 'application/javascript; charset=utf-8' },
};

/** Serves the three Swagger UI files the docs page asks for, from the swagger-ui-dist package. */
export function swaggerAssets() {
  const prefix = `${SWAGGER_ASSET_BASE}/${SWAGGER_ASSET_VERSION}/`;
  const cache = new Map<string, Buffer>();
  return async function assets(ctx: Context, next: Next): Promise<void> {
    if (ctx.method !== 'GET' || !ctx.path.startsWith(prefix)) return next();
    const asset = FILES[ctx.path.slice(prefix.length)];
    if (!asset) return next();
    let body = cache.get(asset.file);
    if (!body) {
      body = await readFile(join(DIST, asset.file));
      cache.set(asset.file, body);
    }
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = body;
  };
}
