import { copyFileSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Level } from 'level';

/** LevelDB's lines for data it skipped while replaying its write-ahead log at open. */
const DROPPED = /dropping \d+ bytes|Ignoring error/;

/**
 * What LevelDB would drop when it opens `location`: the lines its info LOG writes for log records it
 * cannot read ("...000006.log: dropping 5000 bytes; Corruption: checksum mismatch"). Without
 * paranoid checks (which classic-level does not expose) LevelDB skips such records silently and
 * then deletes the log, so the check opens a copy made of hard links in a sibling folder: LevelDB
 * never rewrites a file in place (recovery writes new tables, a new MANIFEST and a new log), so the
 * real store stays exactly as it was, whatever the copy finds. Nothing to replay, nothing to check.
 */
export async function droppedAtOpen(location: string): Promise<string[]> {
  const files = readdirSync(location);
  const logs = files.filter((f) => f.endsWith('.log') && statSync(join(location, f)).size > 0);
  if (logs.length === 0 || !files.includes('CURRENT')) return [];
  const copy = `${location}.open-check`;
  rmSync(copy, { recursive: true, force: true });
  mkdirSync(copy, { mode: 0o700 });
  try {
    for (const file of files) {
      if (file === 'LOCK' || file.startsWith('LOG')) continue;
      try {
        linkSync(join(location, file), join(copy, file));
      } catch {
        copyFileSync(join(location, file), join(copy, file));
      }
    }
    const db = new Level(copy, { createIfMissing: false });
    try {
      await db.open();
    } catch {
      return []; // The real open fails the same way, and says why.
    }
    await db.close();
    return readFileSync(join(copy, 'LOG'), 'utf8')
      .split('\n')
      .filter((line) => DROPPED.test(line))
      .map((line) => line.replace(/^\S+ \S+ /, '').replaceAll(copy, location));
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}
