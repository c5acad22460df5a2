/**
 * Raw keys as LevelDB's sublevels write them: each namespace of the path as `!name!`, then the key
 * (`!core!!users!alice`). The PostgreSQL store keeps the namespace part as a row's `ns` (or as its
 * table) and reads and writes raw entries in the same form, so backups move between drivers.
 */

/** The prefix of a namespace path: `['core', 'users']` → `!core!!users!`. */
export const rawPrefix = (path: readonly string[]): string => path.map((segment) => `!${segment}!`).join('');

/** Splits a raw key into its namespace prefix and key (a key is what follows the last `!name!`). */
export function splitRawKey(raw: string): { ns: string; key: string } {
  let at = 0;
  while (raw.charCodeAt(at) === 33 /* ! */) {
    const close = raw.indexOf('!', at + 1);
    if (close < 0) break;
    at = close + 1;
  }
  return { ns: raw.slice(0, at), key: raw.slice(at) };
}
