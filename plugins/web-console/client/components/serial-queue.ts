/**
 * Runs one device request at a time. AMT firmware serves few connections at once, and the device
 * page's reads (power, inventory, event log) are each several WS-Management exchanges: asking them
 * one after another is gentler on the device and ends sooner than making them compete.
 */
export type SerialQueue = <T>(task: () => Promise<T>) => Promise<T>;

export function serialQueue(): SerialQueue {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>) => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}
