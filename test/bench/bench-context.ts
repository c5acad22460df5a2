/** What every benchmark is given, and what it is. */
import type { BenchOptions } from './bench-options.js';
import type { BenchResult } from './bench-result.js';

export interface BenchContext {
  options: BenchOptions;
  /** A fresh directory of this benchmark's own, removed afterwards. */
  workDir: string;
  /** A progress line on stderr. */
  log(line: string): void;
}

export interface Benchmark {
  name: string;
  title: string;
  /** Why the benchmark cannot run here (e.g. a plugin is missing), or undefined. */
  unavailable?(): string | undefined;
  run(ctx: BenchContext): Promise<BenchResult>;
}
