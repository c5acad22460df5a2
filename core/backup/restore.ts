import { createReadStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Level } from 'level';
import { hasStoreFiles, storeLocation } from '../store/level-store.js';
import { keyMatches, type KeyCheckRecord } from '../secrets/key-check.js';
import { MasterKeyError, readMasterKey } from '../secrets/master-key.js';
import { keyId } from '../secrets/sealer.js';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, KEY_CHECK_RAW, type BackupManifest, type BackupTrailer } from './backup-format.js';

/** A backup that cannot be restored as it is, or a target that must not be written. */
export class RestoreError extends Error {
  readonly code: string;
  constructor(code: 'GW_ERR_BACKUP_DAMAGED' | 'GW_ERR_RESTORE_TARGET', message: string) {
    super(message);
    this.name = 'RestoreError';
    this.code = code;
  }
}

/** Bounds one line (one stored value) of a backup: the store's own values are far smaller. */
const MAX_LINE = 16 * 1024 * 1024;
const BATCH = 1000;

/** Reads a backup's entries in order; `onEntry` sees each. Throws on anything but a whole, unaltered backup. */
async function readBackup(file: string, onEntry: (key: string, json: string) => void | Promise<void>): Promise<{ manifest: BackupManifest; keyCheck?: KeyCheckRecord }> {
  const damaged = (why: string) => new RestoreError('GW_ERR_BACKUP_DAMAGED', `backup ${file} cannot be restored: ${why}; nothing was written`);
  const hash = createHash('sha256');
  let manifest: BackupManifest | undefined;
  let trailer: BackupTrailer | undefined;
  let keyCheck: KeyCheckRecord | undefined;
  let entries = 0;
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) {
    if (trailer) throw damaged('it goes on after its end');
    if (line.length > MAX_LINE) throw damaged('a line is longer than any stored value');
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw damaged(`line ${entries + 2} is not JSON`);
    }
    if (!manifest) {
      const m = parsed as BackupManifest;
      if (m?.format !== BACKUP_FORMAT || m.formatVersion !== BACKUP_FORMAT_VERSION) throw damaged('it is not an amt-gateway backup of a format this version reads');
      manifest = m;
      hash.update(line + '\n');
      continue;
    }
    if (!Array.isArray(parsed)) {
      trailer = parsed as BackupTrailer;
      continue;
    }
    hash.update(line + '\n');
    const [key, json] = parsed as [unknown, unknown];
    if (typeof key !== 'string' || typeof json !== 'string') throw damaged(`entry ${entries + 1} is not a key and a value`);
    if (key === KEY_CHECK_RAW) keyCheck = JSON.parse(json) as KeyCheckRecord;
    entries++;
    await onEntry(key, json);
  }
  if (!manifest) throw damaged('it is empty');
  if (trailer?.end !== true) throw damaged('it is cut short (no end line)');
  if (trailer.entries !== entries || trailer.sha256 !== hash.digest('hex')) throw damaged('its checksum does not match its content');
  return keyCheck ? { manifest, keyCheck } : { manifest };
}

/** Where a restore writes: the LevelDB store of a data directory (default) or an empty PostgreSQL store. */
export interface RestoreTarget {
  /** Throws a RestoreError when the target holds a store already. */
  ensureEmpty(): Promise<void>;
  /** Writes every entry `fill` puts, all or none (a cut-off restore leaves no half store behind). */
  write(fill: (put: (key: string, json: string) => Promise<void>) => Promise<void>): Promise<void>;
}

/**
 * Restores a backup into an empty store: the file is read and checked whole (checksum, and the
 * master key against the backup's key check) before anything is written, then written all or none.
 * `target` is a data directory (LevelDB: written to `db.restoring` and renamed to `db`) or a target
 * of another driver.
 */
export async function restoreBackup(file: string, target: string | RestoreTarget, keyFile: string, env: NodeJS.ProcessEnv): Promise<{ entries: number; manifest: BackupManifest }> {
  const into = typeof target === 'string' ? levelTarget(target) : target;
  await into.ensureEmpty();
  const { manifest, keyCheck } = await readBackup(file, () => undefined);
  if (manifest.keyId && keyCheck) {
    const loaded = readMasterKey(keyFile, env);
    const where = `put its key file at ${keyFile} or set AMTGW_MASTER_KEY`;
    if (!loaded) throw new MasterKeyError(`backup ${file} is sealed under master key id ${manifest.keyId}, and there is no master key (${where}); nothing was written`);
    if (!keyMatches(keyCheck, loaded.key)) {
      throw new MasterKeyError(`backup ${file} is sealed under master key id ${manifest.keyId}, but the master key from ${loaded.source === 'env' ? 'AMTGW_MASTER_KEY' : keyFile} has id ${keyId(loaded.key)}; restore with the key the backup was made under (${where}); nothing was written`);
    }
  }
  let entries = 0;
  await into.write((put) =>
    readBackup(file, async (key, value) => {
      entries++;
      await put(key, value);
    }).then(() => undefined),
  );
  return { entries, manifest };
}

/** The LevelDB store of `dataDir`: written to `db.restoring`, renamed to `db` once whole. */
function levelTarget(dataDir: string): RestoreTarget {
  const location = storeLocation(dataDir);
  return {
    async ensureEmpty() {
      if (hasStoreFiles(location)) throw new RestoreError('GW_ERR_RESTORE_TARGET', `restore writes only into an empty data directory, and ${location} holds a store; choose another data directory (or move this one aside); nothing was written`);
    },
    async write(fill) {
      const staging = `${location}.restoring`;
      rmSync(staging, { recursive: true, force: true });
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      const db = new Level<string, string>(staging, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
      try {
        await db.open();
        let batch: Array<{ type: 'put'; key: string; value: string }> = [];
        await fill(async (key, value) => {
          batch.push({ type: 'put', key, value });
          if (batch.length >= BATCH) await db.batch(batch.splice(0));
        });
        if (batch.length) await db.batch(batch, { sync: true });
        batch = [];
        await db.close();
        // Only LevelDB's LOCK and info logs can be there (hasStoreFiles said so above).
        if (existsSync(location)) rmSync(location, { recursive: true });
        renameSync(staging, location);
      } catch (err) {
        await db.close().catch(() => undefined);
        rmSync(staging, { recursive: true, force: true });
        throw err;
      }
    },
  };
}
