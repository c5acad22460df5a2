/**
 * The kernel's start and stop. Start-up reads as its phases, each a function of its own returning a
 * typed value: `load` and `order` (core/startup/load-phase.ts), `infrastructure`
 * (infrastructure.ts), `register` (register-phase.ts), `ready` and `listen` (http-phase.ts).
 */
import type { GatewayConfig } from './config/gateway-config.js';
import { createLogger, type Logger } from './log/logger.js';
import { CORE_PLUGIN } from './core-plugin.js';
import { loadEnabledPlugins, orderLoadedPlugins } from './startup/load-phase.js';
import { startInfrastructure } from './startup/infrastructure.js';
import { registerPlugins } from './startup/register-phase.js';
import { buildHttpApp, listenMain } from './startup/http-phase.js';
import { createLifecycle } from './startup/lifecycle.js';
import { startupPhases } from './startup/startup-phases.js';

/** A running gateway. */
export interface Gateway {
  readonly config: GatewayConfig;
  /** Base URL of the main listener, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  readonly logger: Logger;
  /** Names of the registered plugins, in registration order. */
  readonly plugins: string[];
  /** Every listener with its owner: the main one (`core`) first, then those plugins opened. */
  readonly listeners: ReadonlyArray<{ plugin: string; url: string }>;
  /** Every JSON route, with the plugin that registered it (`core` for the kernel's own). */
  readonly routes: Array<{ plugin: string; method: string; path: string; permission: string }>;
  /** Set when the admin password was generated at this start. */
  readonly generatedAdminPassword: string | undefined;
  /** Graceful stop: stop accepting, drain, plugin teardown in reverse order, close pool and store. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Working directory for relative paths (plugins by path, the data directory). */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Log sink; default stdout. */
  writeLog?: (line: string) => void;
  /** Start even when LevelDB would drop unreadable records of its log (`--accept-store-damage`); logged loudly. */
  acceptStoreDamage?: boolean;
  /**
   * For tests: compile every route's schemas at start (a gateway otherwise compiles each when its
   * route is first called), so that a schema that does not compile fails the start.
   */
  checkSchemas?: boolean;
}

/**
 * Starts the gateway: the enabled plugins loaded and ordered, the store, sealing, users and worker
 * pool, every plugin registered, the HTTP app built and listening. Anything that fails undoes what
 * was started and rethrows.
 */
export async function startGateway(config: GatewayConfig, options: StartOptions = {}): Promise<Gateway> {
  const phases = startupPhases();
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const logger = createLogger({ level: config.log.level, ...(options.writeLog ? { write: options.writeLog } : {}) });
  const ordered = orderLoadedPlugins(await loadEnabledPlugins(config, cwd, env, logger));
  phases.mark('load');
  const infrastructure = await startInfrastructure(config, { cwd, env, logger, acceptStoreDamage: options.acceptStoreDamage ?? false, permissionNames: ordered.permissionNames });
  phases.mark('infrastructure');
  const lifecycle = createLifecycle(logger);
  const shutdown = async () => {
    await lifecycle.stop(config.server.shutdownTimeoutMs);
    await infrastructure.close();
  };
  try {
    const registered = await registerPlugins({ config, cwd, logger, ordered, infrastructure, lifecycle });
    phases.mark('register');
    const app = buildHttpApp(config, registered.parts, infrastructure.auth, { checkSchemas: options.checkSchemas === true });
    phases.mark('http');
    const main = await listenMain(config, app.callback(), registered.parts.upgrades);
    lifecycle.addListener(CORE_PLUGIN, main, true);
    registered.setBaseUrl(main.url);
    await lifecycle.markServing();
    phases.mark('listen');
    const plugins = registered.manifests.map((p) => p.name);
    logger.info('gateway serving', { url: main.url, plugins, startupMs: phases.summary() });
    let stopping: Promise<void> | undefined;
    return {
      config,
      url: main.url,
      logger,
      plugins,
      listeners: lifecycle.owners,
      routes: registered.parts.routes.list().map((r) => ({ plugin: r.plugin, method: r.method, path: r.path, permission: r.spec.permission })),
      generatedAdminPassword: infrastructure.generatedAdminPassword,
      stop: () => (stopping ??= shutdown().then(() => logger.info('gateway stopped'))),
    };
  } catch (err) {
    await shutdown().catch(() => undefined);
    throw err;
  }
}
