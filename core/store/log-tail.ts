/**
 * What LevelDB drops without a word when it opens a store whose write-ahead log was cut short: it
 * takes a record that ends past the end of the file (a truncated copy, a crash or power loss in the
 * middle of a write) for one the writer never finished, and skips it silently, and whatever writes
 * came after the cut are simply not there. This reads the log's framing (LevelDB's doc/log_format.md:
 * 32 KiB blocks of records, each a 7-byte header, `checksum u32 | length u16 | type u8`, then the
 * data; FULL 1, FIRST 2, MIDDLE 3, LAST 4, a block's last 6 bytes or fewer zero padding) to say how
 * many bytes at the end are an incomplete record, and which write was the last whole one (each
 * record is a WriteBatch: `sequence u64 | count u32 | ...`, little-endian). Checksums are LevelDB's
 * to check (recovery-check.ts finds what it refuses); this only looks at where the log ends.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const BLOCK = 32768;
const HEADER = 7;
const FULL = 1;
const FIRST = 2;
const MIDDLE = 3;
const LAST = 4;
const BATCH_HEADER = 12;

/** A log whose end is an incomplete record. */
export interface CutLog {
  /** The log's file name (no path). */
  file: string;
  /** Bytes at the end LevelDB drops: the incomplete record. */
  droppedBytes: number;
  /** The sequence number of the last whole write before the cut; null when none was whole. */
  lastWholeSequence: number | null;
  /** Entries of the write cut short, when its header survived. */
  cutWriteEntries: number | null;
}

/** The sequence of the last entry a batch holds, and its entry count; null for a batch too short to say. */
function batchEnd(data: Buffer): { last: number; count: number } | null {
  if (data.length < BATCH_HEADER) return null;
  const sequence = Number(data.readBigUInt64LE(0));
  const count = data.readUInt32LE(8);
  return { last: sequence + Math.max(0, count - 1), count };
}

/** Where a log's data ends short of a whole record, if it does. */
export function cutLogTail(bytes: Buffer): Omit<CutLog, 'file'> | null {
  let position = 0;
  let lastWholeSequence: number | null = null;
  /** A logical record under way (FIRST seen, LAST not yet): where it started and its data so far. */
  let fragment: { start: number; data: Buffer[] } | null = null;
  const cut = (from: number) => {
    const data = fragment ? Buffer.concat(fragment.data) : bytes.subarray(from + HEADER);
    const start = fragment ? fragment.start : from;
    return { droppedBytes: bytes.length - start, lastWholeSequence, cutWriteEntries: batchEnd(data)?.count ?? null };
  };
  while (position < bytes.length) {
    const leftInBlock = BLOCK - (position % BLOCK);
    if (leftInBlock < HEADER) {
      position += leftInBlock;
      continue;
    }
    if (bytes.length - position < HEADER) return cut(position);
    const length = bytes.readUInt16LE(position + 4);
    const type = bytes[position + 6]!;
    if (type === 0 && length === 0) {
      // Zero padding (preallocated space): LevelDB skips the rest of the block.
      position += leftInBlock;
      continue;
    }
    if (position + HEADER + length > bytes.length) return cut(position);
    const data = bytes.subarray(position + HEADER, position + HEADER + length);
    if (type === FULL) {
      lastWholeSequence = batchEnd(data)?.last ?? lastWholeSequence;
      fragment = null;
    } else if (type === FIRST) {
      fragment = { start: position, data: [data] };
    } else if ((type === MIDDLE || type === LAST) && fragment) {
      fragment.data.push(data);
      if (type === LAST) {
        lastWholeSequence = batchEnd(Buffer.concat(fragment.data))?.last ?? lastWholeSequence;
        fragment = null;
      }
    }
    position += HEADER + length;
  }
  return fragment ? { droppedBytes: bytes.length - fragment.start, lastWholeSequence, cutWriteEntries: batchEnd(Buffer.concat(fragment.data))?.count ?? null } : null;
}

/** The store's logs (in `location`) that end in an incomplete record. */
export function cutLogs(location: string): CutLog[] {
  const logs = readdirSync(location).filter((f) => /^\d+\.log$/.test(f));
  const found: CutLog[] = [];
  for (const file of logs) {
    const tail = cutLogTail(readFileSync(join(location, file)));
    if (tail) found.push({ file, ...tail });
  }
  return found;
}
