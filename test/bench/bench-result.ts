/** What a benchmark returns: its figures, each beside the reference measured in the same run. */

export interface Figure {
  /** What is measured, e.g. "sweep, seconds". */
  label: string;
  unit: string;
  gateway: number | null;
  /** The reference's figure from the same run (null when the reference could not run). */
  reference?: number | null;
  /** Which way is better; the ratio is always gateway / reference. */
  better?: 'higher' | 'lower';
  note?: string;
}

export interface BenchResult {
  name: string;
  title: string;
  /** What the reference column is. */
  reference: string;
  figures: Figure[];
  notes: string[];
  /** Set when the benchmark did not run (e.g. a plugin is not available). */
  skipped?: string;
  seconds?: number;
  /** Load averages when it started and ended (a busy machine is noted beside the figures). */
  load?: { before: string; after: string };
}

export function ratio(f: Figure): number | null {
  if (f.gateway === null || f.reference === undefined || f.reference === null || f.reference === 0) return null;
  return f.gateway / f.reference;
}

export function skipped(name: string, title: string, reason: string): BenchResult {
  return { name, title, reference: '', figures: [], notes: [], skipped: reason };
}
