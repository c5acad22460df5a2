/**
 * The backup file: JSON lines. First a manifest, then one `[key, json]` line per stored entry
 * (raw LevelDB keys, namespaces included; values as stored, so secrets stay sealed, user password
 * hashes included), then a trailer with the entry count, the SHA-256 of every line before it (what
 * a damaged file fails) and, since format 2, their HMAC under the backup key derived from the master
 * key (what a file edited without the key fails: backup-authentication.ts).
 *
 * ```
 * {"format":"amt-gateway-backup","formatVersion":2,"gatewayVersion":"0.1.0","keyId":"…","createdAt":"…"}
 * ["!core!!users!admin","{…}"]
 * {"end":true,"entries":1234,"sha256":"…","hmac":"…"}
 * ```
 *
 * Format 1, written before backups were authenticated, has no HMAC: restore refuses it unless told it was kept safe.
 */
import { createHash } from 'node:crypto';
import { backupHmac } from './backup-authentication.js';
import type { RawEntry } from '../store/level-store.js';
import type { KeyCheckRecord } from '../secrets/key-check.js';
import { KEY_CHECK_KEY } from '../secrets/key-check.js';

export const BACKUP_FORMAT = 'amt-gateway-backup';
export const BACKUP_FORMAT_VERSION = 2;
/** The format before backups were authenticated; restored only on the operator's word. */
export const UNAUTHENTICATED_FORMAT_VERSION = 1;
/** The kernel's namespace (its plugin name, `core`), where the key check lives. */
export const KERNEL_NAMESPACE = 'core';
/** The raw key of the kernel's key check record, which names the key a backup is sealed under. */
export const KEY_CHECK_RAW = `!${KERNEL_NAMESPACE}!${KEY_CHECK_KEY}`;

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  formatVersion: number;
  gatewayVersion: string;
  /** The id of the master key the backup's secrets are sealed under; null for a store that never sealed anything. */
  keyId: string | null;
  createdAt: string;
}

export interface BackupTrailer {
  end: true;
  entries: number;
  sha256: string;
  /** HMAC-SHA256 (hex) of every line before the trailer under the backup key; absent in format 1. */
  hmac?: string;
}

/**
 * The lines of a backup of one snapshot (`pages` is read once, in order), authenticated under
 * `masterKey` (the key the store is sealed with). The key check comes first, so the manifest can name the key.
 */
export async function* backupLines(pages: AsyncIterable<RawEntry[]>, gatewayVersion: string, masterKey: Uint8Array): AsyncGenerator<string> {
  const hash = createHash('sha256');
  const hmac = backupHmac(masterKey);
  const emit = (line: string) => {
    hash.update(line);
    hmac.update(line);
    return line;
  };
  let entries = 0;
  let manifestSent = false;
  const buffered: string[] = [];
  for await (const page of pages) {
    for (const [key, json] of page) {
      const line = JSON.stringify([key, json]) + '\n';
      if (!manifestSent && key === KEY_CHECK_RAW) {
        yield emit(manifestLine(gatewayVersion, (JSON.parse(json) as KeyCheckRecord).keyId));
        manifestSent = true;
        for (const earlier of buffered.splice(0)) yield emit(earlier);
      }
      entries++;
      if (manifestSent) yield emit(line);
      else buffered.push(line);
    }
  }
  // Keys sort `!core!` before every plugin's `!plugin:…!`, so only core entries were ever buffered.
  if (!manifestSent) {
    yield emit(manifestLine(gatewayVersion, null));
    for (const earlier of buffered) yield emit(earlier);
  }
  yield JSON.stringify({ end: true, entries, sha256: hash.digest('hex'), hmac: hmac.digest('hex') } satisfies BackupTrailer) + '\n';
}

function manifestLine(gatewayVersion: string, keyId: string | null): string {
  const manifest: BackupManifest = { format: BACKUP_FORMAT, formatVersion: BACKUP_FORMAT_VERSION, gatewayVersion, keyId, createdAt: new Date().toISOString() };
  return JSON.stringify(manifest) + '\n';
}
