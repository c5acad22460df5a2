/** Bounds how many async jobs run at once; the rest wait in call order. */
export interface Semaphore {
  run<T>(job: () => Promise<T>): Promise<T>;
  readonly active: number;
  readonly waiting: number;
}

export function createSemaphore(limit: number): Semaphore {
  let active = 0;
  const queue: Array<() => void> = [];
  return {
    async run(job) {
      // A finishing job hands its slot straight to the next waiter, so `active` never overshoots.
      if (active >= limit) await new Promise<void>((resolve) => queue.push(resolve));
      else active++;
      try {
        return await job();
      } finally {
        const next = queue.shift();
        if (next) next();
        else active--;
      }
    },
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
  };
}
