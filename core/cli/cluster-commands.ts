/**
 * The operator commands of a site on PostgreSQL: `migrate-store --to postgres://...` (a LevelDB
 * site moved into an empty PostgreSQL store), and backup and restore when `store.driver` is
 * `postgres` (the same file format as LevelDB's). Imported only by those commands.
 */
import { resolve } from 'node:path';
import type { GatewayConfig } from '../config/gateway-config.js';
import { loadEnabledPlugins, orderLoadedPlugins } from '../startup/load-phase.js';
import { siteCollections } from '../store/kernel-collections.js';
import { openPostgresStore, type PostgresStore } from '../store/postgres/pg-store.js';
import { openStoppedStore, printUnauthenticatedNote } from './store-commands.js';
import { establishMasterKey } from '../secrets/key-check.js';
import { MasterKeyError, masterKeyFile, readOtherMasterKey } from '../secrets/master-key.js';
import { resealOperations } from '../secrets/key-rotation.js';
import { keyId } from '../secrets/sealer.js';
import { writeBackup } from '../backup/backup-client.js';
import { RestoreError, restoreBackup, type RestoreTarget } from '../backup/restore.js';
import { storeDriver } from '../store/open-gateway-store.js';
import { PACKAGE_VERSION } from '../assets/package-root.js';
import type { RawOperation } from '../store/gateway-store.js';

type Print = (line: string) => void;

/** The PostgreSQL store at `url`, migrated with the site's collections (those of its enabled plugins). */
async function openSiteStore(config: GatewayConfig, url: string): Promise<PostgresStore> {
  const ordered = orderLoadedPlugins(await loadEnabledPlugins(config, process.cwd(), process.env));
  return openPostgresStore({ url, collections: siteCollections(ordered.plugins) });
}

/** An empty PostgreSQL store as a restore target: everything in one statement, all or none. */
function postgresTarget(store: PostgresStore, what: string): RestoreTarget {
  return {
    async ensureEmpty() {
      for await (const page of store.rawPages()) {
        if (page.length > 0) throw new RestoreError('GW_ERR_RESTORE_TARGET', `${what} writes only into an empty store, and the database holds one (${page[0]![0]}...); use a new database; nothing was written`);
      }
    },
    async write(fill) {
      const operations: RawOperation[] = [];
      await fill(async (key, value) => void operations.push({ type: 'put', key, value }));
      await store.rawBatch(operations);
    },
  };
}

/**
 * `migrate-store --to URL`: copies every record of this site's LevelDB store (stopped) into the
 * empty PostgreSQL database at URL, as stored (secrets stay sealed under the same master key), in
 * one transaction. The LevelDB store is left as it was.
 */
export async function migrateStoreCommand(config: GatewayConfig, to: string | undefined, env: NodeJS.ProcessEnv, print: Print): Promise<void> {
  if (!to || !/^postgres(ql)?:\/\//.test(to)) throw new Error('migrate-store needs --to postgres://user:password@host:port/database');
  const dataDir = resolve(config.dataDir);
  const level = await openStoppedStore(dataDir, 'migrate-store');
  try {
    // The key must open this store's secrets: the cluster's instances will need the same key.
    const key = await establishMasterKey(level, level.namespace('core'), masterKeyFile(config, process.cwd()), env, dataDir);
    const target = await openSiteStore(config, to);
    try {
      const into = postgresTarget(target, 'migrate-store');
      await into.ensureEmpty();
      let entries = 0;
      await into.write(async (put) => {
        for await (const page of level.rawPages()) {
          for (const [k, json] of page) await put(k, json);
          entries += page.length;
        }
      });
      print(`migrated ${entries} records from ${dataDir} into PostgreSQL (secrets still sealed under key id ${keyId(key.key)}); start every instance with store.driver "postgres", this store.url and the same master key`);
    } finally {
      await target.close();
    }
  } finally {
    await level.close();
  }
}

/** `backup --out FILE` of a PostgreSQL site: from the database's snapshot (the running instances go on). */
export async function postgresBackupCommand(config: GatewayConfig, out: string, print: Print): Promise<void> {
  const { url } = storeDriver(config) as { url: string };
  const store = await openSiteStore(config, url);
  try {
    const { manifest, trailer } = await writeBackup(resolve(config.dataDir), resolve(out), PACKAGE_VERSION, masterKeyFile(config, process.cwd()), process.env, store);
    print(`backup written to ${resolve(out)}: ${trailer.entries} entries, key id ${manifest.keyId ?? 'none'}, sha256 ${trailer.sha256} (from the PostgreSQL store)`);
  } finally {
    await store.close();
  }
}

/** `restore FILE` into an empty PostgreSQL store (no instance running on it). */
export async function postgresRestoreCommand(config: GatewayConfig, file: string, env: NodeJS.ProcessEnv, print: Print, acceptUnauthenticated = false): Promise<void> {
  const { url } = storeDriver(config) as { url: string };
  const store = await openSiteStore(config, url);
  try {
    const { entries, manifest } = await restoreBackup(resolve(file), postgresTarget(store, 'restore'), masterKeyFile(config, process.cwd()), env, { acceptUnauthenticated });
    printUnauthenticatedNote(manifest, print);
    print(`restored ${entries} entries (gateway ${manifest.gatewayVersion}, key id ${manifest.keyId ?? 'none'}, taken ${manifest.createdAt}) into the PostgreSQL store`);
  } finally {
    await store.close();
  }
}

/**
 * `rotate-key` of a cluster (README, "Rotating the master key of a cluster"): re-seals every secret
 * of the PostgreSQL store under AMTGW_MASTER_KEY_NEXT, in one transaction, while the instances run.
 * Every instance must already open both keys (started with AMTGW_MASTER_KEY and
 * AMTGW_MASTER_KEY_NEXT), so that none meets a secret it cannot open, before or after.
 */
export async function postgresRotateKeyCommand(config: GatewayConfig, env: NodeJS.ProcessEnv, print: Print): Promise<void> {
  const next = readOtherMasterKey(env);
  if (!next) throw new MasterKeyError('rotate-key of a cluster re-seals under AMTGW_MASTER_KEY_NEXT, which is not set; see "Rotating the master key of a cluster" in the README');
  const { url } = storeDriver(config) as { url: string };
  const store = await openSiteStore(config, url);
  try {
    const current = await establishMasterKey(store, store.namespace('core'), masterKeyFile(config, process.cwd()), env, resolve(config.dataDir));
    const operations = await resealOperations(store, [current.key], next);
    await store.rawBatch(operations);
    print(`the cluster's store is re-sealed under key id ${keyId(next)} (${operations.length - 1} values); next: restart each instance with it as AMTGW_MASTER_KEY and the old key as AMTGW_MASTER_KEY_NEXT, run this same command again, then restart each without the old key`);
  } finally {
    await store.close();
  }
}
