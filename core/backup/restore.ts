import { createReadStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Level } from 'level';
import { hasStoreFiles, storeLocation } from '../store/level-store.js';
import { keyMatches, type KeyCheckRecord } from '../secrets/key-check.js';
import { MasterKeyError, readMasterKey } from '../secrets/master-key.js';
import { keyId } from '../secrets/sealer.js';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, KEY_CHECK_RAW, UNAUTHENTICATED_FORMAT_VERSION, type BackupManifest, type BackupTrailer } from './backup-format.js';
import { backupHmac, hmacMatches } from './backup-authentication.js';

/** A backup that cannot be restored as it is, or a target that must not be written. */
export class RestoreError extends Error {
  readonly code: string;
  constructor(code: 'GW_ERR_BACKUP_DAMAGED' | 'GW_ERR_BACKUP_UNAUTHENTICATED' | 'GW_ERR_RESTORE_TARGET', message: string) {
    super(message);
    this.name = 'RestoreError';
    this.code = code;
  }
}

/** Bounds one line (one stored value) of a backup: the store's own values are far smaller. */
const MAX_LINE = 16 * 1024 * 1024;
const BATCH = 1000;

/** What a backup read needs beyond its file: the master key its HMAC is keyed by (none for format 1). */
interface ReadOptions {
  masterKey: Uint8Array | undefined;
  /** Take a format-1 backup, which carries no authentication. */
  acceptUnauthenticated: boolean;
  /** Called with the manifest before any entry is read (a key that does not match it is refused there). */
  onManifest(manifest: BackupManifest): void;
}

/**
 * Reads a backup's entries in order; `onEntry` sees each. Throws on anything but a whole backup
 * that is authenticated under the master key (or a format-1 one when accepted): a damaged file
 * fails its checksum, an edited one (its checksum recomputed or not) its HMAC.
 */
async function readBackup(file: string, options: ReadOptions, onEntry: (key: string, json: string) => void | Promise<void>): Promise<{ manifest: BackupManifest; keyCheck?: KeyCheckRecord }> {
  const damaged = (why: string) => new RestoreError('GW_ERR_BACKUP_DAMAGED', `backup ${file} cannot be restored: ${why}; nothing was written`);
  const unauthenticated = (why: string) => new RestoreError('GW_ERR_BACKUP_UNAUTHENTICATED', `backup ${file} cannot be restored: ${why}; nothing was written`);
  const hash = createHash('sha256');
  const hmac = options.masterKey ? backupHmac(options.masterKey) : undefined;
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
      manifest = manifestOf(parsed, options, damaged, unauthenticated);
      options.onManifest(manifest);
      hash.update(line + '\n');
      hmac?.update(line + '\n');
      continue;
    }
    if (!Array.isArray(parsed)) {
      trailer = parsed as BackupTrailer;
      continue;
    }
    hash.update(line + '\n');
    hmac?.update(line + '\n');
    const [key, json] = parsed as [unknown, unknown];
    if (typeof key !== 'string' || typeof json !== 'string') throw damaged(`entry ${entries + 1} is not a key and a value`);
    if (key === KEY_CHECK_RAW) keyCheck = JSON.parse(json) as KeyCheckRecord;
    entries++;
    await onEntry(key, json);
  }
  if (!manifest) throw damaged('it is empty');
  if (trailer?.end !== true) throw damaged('it is cut short (no end line)');
  if (trailer.entries !== entries || trailer.sha256 !== hash.digest('hex')) throw damaged('its checksum does not match its content');
  if (manifest.formatVersion === BACKUP_FORMAT_VERSION && !(hmac && hmacMatches(hmac, trailer.hmac))) {
    throw unauthenticated('its authentication does not match its content: it was changed since it was made, or made under another master key');
  }
  return keyCheck ? { manifest, keyCheck } : { manifest };
}

/** The manifest of a format this version restores; format 1 only when accepted. */
function manifestOf(parsed: unknown, options: ReadOptions, damaged: (why: string) => Error, unauthenticated: (why: string) => Error): BackupManifest {
  const m = parsed as BackupManifest;
  if (m?.format !== BACKUP_FORMAT || (m.formatVersion !== BACKUP_FORMAT_VERSION && m.formatVersion !== UNAUTHENTICATED_FORMAT_VERSION)) throw damaged('it is not an amt-gateway backup of a format this version reads');
  if (m.formatVersion === UNAUTHENTICATED_FORMAT_VERSION && !options.acceptUnauthenticated) {
    throw unauthenticated(
      'it is of format 1, which carries no authentication, so it cannot be told from a backup edited without the master key; restore it with --accept-unauthenticated-backup only if it was kept where nobody could change it',
    );
  }
  return m;
}

/**
 * Restores a backup into an empty data directory: the file is read and checked whole (checksum,
 * its authentication under the master key, the key against the backup's key check) before anything
 * is written, then written to `db.restoring` and renamed to `db`, so a cut-off restore leaves no half
 * store behind. A second read writes it: a file changed between the two fails its check then, and
 * the staging folder is removed.
 */
export interface RestoreOptions {
  /** Restore a format-1 backup (no authentication): the operator vouches that nobody changed it. */
  acceptUnauthenticated?: boolean;
}

export async function restoreBackup(file: string, dataDir: string, keyFile: string, env: NodeJS.ProcessEnv, options: RestoreOptions = {}): Promise<{ entries: number; manifest: BackupManifest }> {
  const location = storeLocation(dataDir);
  if (hasStoreFiles(location)) throw new RestoreError('GW_ERR_RESTORE_TARGET', `restore writes only into an empty data directory, and ${location} holds a store; choose another data directory (or move this one aside); nothing was written`);
  const loaded = readMasterKey(keyFile, env);
  const where = `put its key file at ${keyFile} or set AMTGW_MASTER_KEY`;
  // The key is checked against the manifest before an entry is read, so a wrong key says so rather than "changed".
  const keyFor = (manifest: BackupManifest) => {
    if (!manifest.keyId && manifest.formatVersion !== BACKUP_FORMAT_VERSION) return;
    if (!loaded) throw new MasterKeyError(`backup ${file} is sealed and authenticated under master key id ${manifest.keyId ?? 'none'}, and there is no master key (${where}); nothing was written`);
    if (manifest.keyId !== keyId(loaded.key)) {
      throw new MasterKeyError(`backup ${file} is sealed under master key id ${manifest.keyId}, but the master key from ${loaded.source === 'env' ? 'AMTGW_MASTER_KEY' : keyFile} has id ${keyId(loaded.key)}; restore with the key the backup was made under (${where}); nothing was written`);
    }
  };
  const read = { masterKey: loaded?.key, acceptUnauthenticated: options.acceptUnauthenticated === true, onManifest: keyFor };
  const { manifest, keyCheck } = await readBackup(file, read, () => undefined);
  if (manifest.keyId && keyCheck && !(loaded && keyMatches(keyCheck, loaded.key))) {
    throw new MasterKeyError(`backup ${file} holds a key check that the master key does not open; restore with the key the backup was made under (${where}); nothing was written`);
  }
  const staging = `${location}.restoring`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Level<string, string>(staging, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  let entries = 0;
  try {
    await db.open();
    let batch: Array<{ type: 'put'; key: string; value: string }> = [];
    await readBackup(file, read, async (key, value) => {
      batch.push({ type: 'put', key, value });
      entries++;
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
  return { entries, manifest };
}
