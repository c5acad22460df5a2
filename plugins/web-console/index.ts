/**
 * web-console: the operator console, a single-page application served at `/` and at every page
 * path (deep links survive reload), its assets from this gateway. See README.md.
 */
import { definePlugin } from '../../core/plugin-api.js';
import { defaultBundleDir } from './build-options.js';
import { buildBundle, bundleIsStale, readBundle, type ConsoleBundle } from './console-bundle.js';
import { WEB_CONSOLE_CONFIG_SCHEMA } from './config.js';
import { consoleHandler } from './static-handler.js';

export default definePlugin({
  name: 'web-console',
  version: '1.0.0',
  kernel: '1',
  // `users:manage` is the kernel's permission (its users API contributes no front-end route); the console's page for it does.
  routes: [{ path: '/users', name: 'users', meta: { title: 'Users', icon: 'people', permission: 'users:manage', order: 90 } }],
  configSchema: WEB_CONSOLE_CONFIG_SCHEMA,
  async register(ctx) {
    const dir = ctx.config.bundleDir ?? defaultBundleDir();
    let bundle: ConsoleBundle | null = await readBundle(dir);
    const stale = bundle !== null && (await bundleIsStale(dir));
    if (stale && !ctx.config.buildIfMissing) ctx.logger.warn('web console bundle is older than the client sources; run npm run build:web', { dir });
    if (!bundle || (stale && ctx.config.buildIfMissing)) {
      if (!ctx.config.buildIfMissing) throw new Error(`web-console: no bundle in ${dir}; run npm run build:web`);
      const started = Date.now();
      bundle = await buildBundle(dir);
      ctx.logger.info('web console built in memory', { ms: Date.now() - started, files: bundle.assets.size, reason: stale ? 'stale' : 'missing' });
    }
    // A raw mount rather than JSON routes: these paths are public on purpose (see static-handler.ts).
    ctx.http.mount('/', consoleHandler(bundle));
  },
});
