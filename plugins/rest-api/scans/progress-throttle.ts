/**
 * Limits a stream of progress updates to one per `intervalMs` (the latest wins), and lets the
 * final update through at once.
 */
export interface ProgressThrottle<T> {
  offer(update: T): void;
  /** Sends `update` now and drops anything pending. */
  final(update: T): void;
  stop(): void;
}

export function createProgressThrottle<T>(intervalMs: number, send: (update: T) => void): ProgressThrottle<T> {
  let lastSent = 0;
  let pending: T | undefined;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    if (pending === undefined) return;
    lastSent = Date.now();
    const update = pending;
    pending = undefined;
    send(update);
  };
  return {
    offer(update) {
      pending = update;
      if (timer) return;
      const wait = lastSent + intervalMs - Date.now();
      if (wait <= 0) flush();
      else timer = setTimeout(flush, wait);
    },
    final(update) {
      if (timer) clearTimeout(timer);
      timer = undefined;
      pending = undefined;
      lastSent = Date.now();
      send(update);
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      pending = undefined;
    },
  };
}
