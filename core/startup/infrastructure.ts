/**
 * Start-up phase `infrastructure`: what every plugin stands on. The store, the master key and
 * sealing, users and tokens, the worker pool, the admin socket. Anything that fails undoes what
 * this phase started.
 */
import { join, resolve } from 'node:path';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { Logger } from '../log/logger.js';
import { openStore, type GatewayStore } from '../store/level-store.js';
import { establishMasterKey } from '../secrets/key-check.js';
import { masterKeyFile } from '../secrets/master-key.js';
import { createSealer } from '../secrets/sealer.js';
import { createWorkerPool, type WorkerPool } from '../pool/worker-pool.js';
import { createUserStore } from '../auth/user-store.js';
import { createTokenService } from '../auth/token-service.js';
import { createAuthService, type AuthService } from '../auth/auth-service.js';
import { bootstrapAdmin } from '../auth/bootstrap-admin.js';
import { startAdminSocket } from '../backup/admin-socket.js';
import type { PluginSecrets } from '../plugin-api.js';
import { PACKAGE_VERSION } from '../assets/package-root.js';
import { CORE_PLUGIN } from '../core-plugin.js';

const TOKEN_SWEEP_MS = 10 * 60_000;
const DEFAULT_TOKENS_PER_USER = 100;

export interface InfrastructureOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  acceptStoreDamage: boolean;
  /** Every permission name: users' wildcards expand to it. */
  permissionNames: string[];
}

/** The running infrastructure, closed in reverse order of start by `close`. */
export interface Infrastructure {
  readonly dataDir: string;
  readonly store: GatewayStore;
  readonly secrets: PluginSecrets;
  readonly auth: AuthService;
  readonly pool: WorkerPool;
  /** Set when the admin password was generated at this start. */
  readonly generatedAdminPassword: string | undefined;
  /** Stops the token sweep, the pool, the admin socket and the store (after the plugins' teardown). */
  close(): Promise<void>;
}

/** Phase `infrastructure`: opens the store and starts what sits on it. */
export async function startInfrastructure(config: GatewayConfig, options: InfrastructureOptions): Promise<Infrastructure> {
  const { cwd, env, logger } = options;
  const dataDir = resolve(cwd, config.dataDir);
  const store = await openStore(dataDir, { acceptDamage: options.acceptStoreDamage, logger });
  const closers: Array<() => unknown> = [() => store.close()];
  const close = async () => {
    for (const closer of closers.reverse()) await closer();
  };
  try {
    const coreStore = store.namespace(CORE_PLUGIN);
    const masterKey = await establishMasterKey(store, coreStore, masterKeyFile(config, cwd), env, dataDir);
    if (masterKey.recovered) logger.warn('finished a key rotation that was cut off: the key file now holds the new key');
    const permissionNames = () => options.permissionNames;
    const secrets = createSealer(masterKey.key);
    const auth = createAuthService(await createUserStore(coreStore.namespace('users'), secrets), createTokenService(coreStore.namespace('tokens'), config.auth.tokenTtlSeconds, Date.now, config.auth.maxTokensPerUser ?? DEFAULT_TOKENS_PER_USER), permissionNames);
    await auth.tokens.sweep();
    const sweeper = setInterval(() => void auth.tokens.sweep().catch((err: Error) => logger.warn('token sweep failed', { error: err.message })), TOKEN_SWEEP_MS);
    sweeper.unref();
    closers.push(() => clearInterval(sweeper));
    const bootstrap = await bootstrapAdmin(auth.users, resolve(cwd, config.auth.adminPasswordFile ?? join(dataDir, 'admin-password')), logger, env);
    const pool = createWorkerPool(config.workers);
    closers.push(() => pool.close());
    const adminSocket = await startAdminSocket(dataDir, store, PACKAGE_VERSION, masterKey.key, logger);
    closers.push(() => adminSocket?.close());
    return { dataDir, store, secrets, auth, pool, generatedAdminPassword: bootstrap.generatedPassword, close };
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
}
