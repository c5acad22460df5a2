/**
 * Opens the store the configuration names: LevelDB in the data directory (the default), or the
 * PostgreSQL database at `store.url`, whose driver is imported only then (a LevelDB start never
 * loads it).
 */
import type { GatewayConfig } from '../config/gateway-config.js';
import type { Logger } from '../log/logger.js';
import type { GatewayStore } from './gateway-store.js';
import { openStore } from './level-store.js';
import { checkCollections, type PlacedCollection } from './collections.js';
import type { PostgresStore } from './postgres/pg-store.js';

export interface OpenGatewayStoreOptions {
  acceptDamage?: boolean;
  logger?: Logger;
  /** Every enabled plugin's collections and the kernel's, each with who declared it. */
  collections?: Array<PlacedCollection & { owner: string }>;
  /** The PostgreSQL driver lost track of the cluster's writes (see pg-store.ts). */
  onLost?: (message: string) => void;
}

/** `postgres` with its URL, or `level`. */
export function storeDriver(config: Pick<GatewayConfig, 'store'>): { driver: 'level' } | { driver: 'postgres'; url: string } {
  if ((config.store?.driver ?? 'level') === 'level') return { driver: 'level' };
  const url = config.store?.url;
  if (!url) throw new Error('store.driver is "postgres" but store.url (AMTGW_STORE_URL) is not set: give the postgres://user:password@host:port/database URL');
  if (!/^postgres(ql)?:\/\//.test(url)) throw new Error('store.url must be a postgres:// URL');
  return { driver: 'postgres', url };
}

export async function openGatewayStore(config: Pick<GatewayConfig, 'store'>, dataDir: string, options: OpenGatewayStoreOptions = {}): Promise<GatewayStore> {
  const chosen = storeDriver(config);
  if (chosen.driver === 'level') return openStore(dataDir, { ...(options.acceptDamage ? { acceptDamage: true } : {}), ...(options.logger ? { logger: options.logger } : {}) });
  const collections = options.collections ?? [];
  checkCollections(collections);
  const { openPostgresStore } = await import('./postgres/pg-store.js');
  return openPostgresStore({
    url: chosen.url,
    collections: collections.map(({ owner: _owner, ...c }) => c),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(config.store?.poolSize ? { poolSize: config.store.poolSize } : {}),
    ...(config.store?.changeRetentionSeconds ? { changeRetentionSeconds: config.store.changeRetentionSeconds } : {}),
    ...(options.onLost ? { onLost: options.onLost } : {}),
  });
}

/** The PostgreSQL store behind a GatewayStore, or undefined for LevelDB. */
export const postgresOf = (store: GatewayStore): PostgresStore | undefined => (store.driver === 'postgres' ? (store as PostgresStore) : undefined);
