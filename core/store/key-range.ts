/** How both store drivers read `pages` options: the key range and the page size. */
import type { PageOptions } from './key-value-store.js';

export const ENTRIES_PAGE = 1000;
/** Bounds what one page holds in memory at once. */
const MAX_PAGE = 10_000;

/** The page size asked for, within [1, 10,000]; default 1,000. */
export const pageSize = (size: number | undefined): number => Math.min(Math.max(1, size ?? ENTRIES_PAGE), MAX_PAGE);

/** The bounds of a prefix and/or a `[gte, lt)` range: both apply. */
export function keyRange({ prefix, gte, lt }: PageOptions): { gte?: string; lt?: string } {
  const range: { gte?: string; lt?: string } = {};
  const lower = [prefix, gte].filter((k) => k !== undefined).sort().pop();
  const upper = [prefix === undefined ? undefined : prefix + '\uffff', lt].filter((k) => k !== undefined).sort()[0];
  if (lower !== undefined) range.gte = lower;
  if (upper !== undefined) range.lt = upper;
  return range;
}
