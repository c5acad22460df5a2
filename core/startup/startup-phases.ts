/**
 * Where a start's time went, logged with "gateway serving" (`startupMs`): `process` is the time from
 * the process's start to the kernel's (node's own start, importing the kernel, reading the
 * configuration), then each phase's milliseconds, then `total` (process start to serving). The same
 * figures an operator reads in the log are those `npm run bench -- startup` prints.
 */
export interface StartupPhases {
  /** Ends the phase running now under `name`. */
  mark(name: string): void;
  /** Each phase's milliseconds, rounded, in order, with `process` first and `total` last. */
  summary(): Record<string, number>;
}

export function startupPhases(): StartupPhases {
  const phases: Array<[string, number]> = [['process', performance.now()]];
  let last = phases[0]![1];
  return {
    mark(name) {
      const now = performance.now();
      phases.push([name, now - last]);
      last = now;
    },
    summary() {
      const all: Array<[string, number]> = [...phases, ['total', last]];
      return Object.fromEntries(all.map(([name, ms]) => [name, Math.round(ms)]));
    },
  };
}
