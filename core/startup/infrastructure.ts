/**
 * Start-up phase `infrastructure`: what every plugin stands on. The store, the master key and
 * sealing, users and tokens, the worker pool, the admin socket. Anything that fails undoes what
 * this phase started.
 */
import { join, resolve } from 'node:path';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { Logger } from '../log/logger.js';
import type { GatewayStore } from '../store/gateway-store.js';
import { openGatewayStore } from '../store/open-gateway-store.js';
import type { PlacedCollection } from '../store/collections.js';
import { establishMasterKey } from '../secrets/key-check.js';
import { masterKeyFile, readOtherMasterKey } from '../secrets/master-key.js';
import { createSealer } from '../secrets/sealer.js';
import { createWorkerPool, type WorkerPool } from '../pool/worker-pool.js';
import { createUserStore } from '../auth/user-store.js';
import { createTokenService } from '../auth/token-service.js';
import { createAuthService, type AuthService } from '../auth/auth-service.js';
import { bootstrapAdmin, type BootstrapTurn } from '../auth/bootstrap-admin.js';
import { postgresOf } from '../store/open-gateway-store.js';
import { startAdminSocket } from '../backup/admin-socket.js';
import type { PluginSecrets } from '../plugin-api.js';
import { PACKAGE_VERSION } from '../assets/package-root.js';
import { CORE_PLUGIN } from '../core-plugin.js';
import { deriveInternalKey } from '../cluster/internal-key.js';

const TOKEN_SWEEP_MS = 10 * 60_000;
const DEFAULT_TOKENS_PER_USER = 100;

export interface InfrastructureOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  acceptStoreDamage: boolean;
  /** Every permission name: users' wildcards expand to it. */
  permissionNames: string[];
  /** Called when the gateway can no longer be trusted to serve (a cluster's instance that missed writes the change log no longer holds). */
  onFatal?: (reason: string) => void;
  /** The collections the kernel and the enabled plugins declared (the PostgreSQL driver's tables). */
  collections: Array<PlacedCollection & { owner: string }>;
}

/** The running infrastructure, closed in reverse order of start by `close`. */
export interface Infrastructure {
  readonly dataDir: string;
  readonly store: GatewayStore;
  readonly secrets: PluginSecrets;
  /** The keys of internal calls between instances (derived from the master key; cluster/internal-key.ts): signed with the first, any accepted. */
  readonly internalKeys: Buffer[];
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
  const store = await openGatewayStore(config, dataDir, { acceptDamage: options.acceptStoreDamage, logger, collections: options.collections, ...(options.onFatal ? { onLost: options.onFatal } : {}) });
  const closers: Array<() => unknown> = [() => store.close()];
  const close = async () => {
    for (const closer of closers.reverse()) await closer();
  };
  try {
    const coreStore = store.namespace(CORE_PLUGIN);
    const masterKey = await establishMasterKey(store, coreStore, masterKeyFile(config, cwd), env, dataDir);
    if (masterKey.recovered) logger.warn('finished a key rotation that was cut off: the key file now holds the new key');
    const permissionNames = () => options.permissionNames;
    // While a cluster rotates its master key (README), secrets sealed under either key open.
    const otherKey = readOtherMasterKey(env);
    const secrets = createSealer(masterKey.key, otherKey ? [otherKey] : []);
    const internalKeys = [masterKey.key, ...(otherKey ? [otherKey] : [])].map(deriveInternalKey);
    const auth = createAuthService(await createUserStore(coreStore.namespace('users'), secrets), createTokenService(coreStore.namespace('tokens'), config.auth.tokenTtlSeconds, Date.now, config.auth.maxTokensPerUser ?? DEFAULT_TOKENS_PER_USER), permissionNames);
    await auth.tokens.sweep();
    const sweeper = setInterval(() => void auth.tokens.sweep().catch((err: Error) => logger.warn('token sweep failed', { error: err.message })), TOKEN_SWEEP_MS);
    sweeper.unref();
    closers.push(() => clearInterval(sweeper));
    const bootstrap = await bootstrapAdmin(auth.users, resolve(cwd, config.auth.adminPasswordFile ?? join(dataDir, 'admin-password')), logger, env, bootstrapTurn(store));
    const pool = createWorkerPool(config.workers);
    closers.push(() => pool.close());
    const adminSocket = await startAdminSocket(dataDir, store, PACKAGE_VERSION, masterKey.key, logger);
    closers.push(() => adminSocket?.close());
    return { dataDir, store, secrets, internalKeys, auth, pool, generatedAdminPassword: bootstrap.generatedPassword, close };
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
}

/** The advisory lock of the first admin's creation ("amtgb" in ASCII). */
const BOOTSTRAP_LOCK = 0x616d746762;

/** With the PostgreSQL store, one instance at a time bootstraps (a session advisory lock); alone, no wait. */
function bootstrapTurn(store: GatewayStore): BootstrapTurn | undefined {
  const postgres = postgresOf(store);
  if (!postgres) return undefined;
  return async (work) => {
    const client = await postgres.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [BOOTSTRAP_LOCK]);
      try {
        return await work();
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [BOOTSTRAP_LOCK]).catch(() => undefined);
      }
    } finally {
      client.release();
    }
  };
}
