/**
 * Device turns shared by every thread of the gateway. The device gate's operations (on the main
 * thread) and the probes of scans and of the online monitor (in worker threads) take a device's turn
 * here before they connect and give it back once the connection is closed, so that a device never
 * sees two connections from the gateway at once, whichever path or thread makes them.
 *
 * One Int32 per slot in shared memory, 0 free and 1 taken; a device's slot is the FNV-1a hash of its
 * key (its address on the local network, or `device:<id>` for a device reached only through its
 * tunnel). Two keys that share a slot merely take turns with each other.
 */

/**
 * How long a turn stays held after a connection the device accepted is closed without waiting for the
 * device's side (a port probe): long enough for the device to take in the close before the gateway's
 * next connection reaches it, whichever way that goes (the LAN, a tunnel). A connection that waits for
 * the device's close (a device task's) needs none.
 */
export const CONNECTION_SETTLE_MS = 25;

/** Slots in a table (256 KiB): with a thousand turns held, another key finds its slot taken one time in 65. */
export const TURN_SLOTS = 1 << 16;
const FREE = 0;
const TAKEN = 1;

/** A new table's memory, handed to the worker tasks that probe devices (`turns` of their input). */
export function createTurnTableMemory(): SharedArrayBuffer {
  return new SharedArrayBuffer(TURN_SLOTS * Int32Array.BYTES_PER_ELEMENT);
}

/**
 * How often a waiter looks at a taken slot again. Not `Atomics.waitAsync`: its promise settles only
 * when something else wakes the thread's event loop, and a worker waiting on nothing else then hangs.
 */
const POLL_MS = 5;

export class TurnTable {
  readonly #slots: Int32Array;

  constructor(readonly memory: SharedArrayBuffer) {
    if (!(memory instanceof SharedArrayBuffer) || memory.byteLength !== TURN_SLOTS * Int32Array.BYTES_PER_ELEMENT) throw new Error('a turn table needs its shared memory');
    this.#slots = new Int32Array(memory);
  }

  /** The slot of a key (FNV-1a over its UTF-16 code units). */
  slotOf(key: string): number {
    let hash = 0x811c9dc5;
    for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
    return (hash >>> 0) & (TURN_SLOTS - 1);
  }

  /** Takes the key's turn if it is free: the slot to give back, or -1 when someone holds it. */
  tryTake(key: string): number {
    const slot = this.slotOf(key);
    return Atomics.compareExchange(this.#slots, slot, FREE, TAKEN) === FREE ? slot : -1;
  }

  /** Gives a turn back; whoever waits for it takes it at its next look. */
  give(slot: number): void {
    Atomics.store(this.#slots, slot, FREE);
  }

  /**
   * Takes the key's turn, waiting for it as long as it takes (the holder's work is bounded) unless
   * `signal` aborts first or `waitMs` passes. Waits without blocking the thread, looking again every
   * few milliseconds. (A deadline of its own rather than `AbortSignal.timeout` under `AbortSignal.any`:
   * an unreferenced timeout signal may be collected before it fires, and the wait would never end.)
   * @returns the slot to give back, or -1 once `waitMs` passed; rejects with the signal's reason when aborted.
   */
  async take(key: string, signal?: AbortSignal, waitMs = Infinity): Promise<number> {
    const slot = this.slotOf(key);
    const deadline = performance.now() + waitMs;
    for (;;) {
      signal?.throwIfAborted();
      if (Atomics.compareExchange(this.#slots, slot, FREE, TAKEN) === FREE) return slot;
      if (performance.now() >= deadline) return -1;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** Whether the key's slot is taken now (for tests and statistics). */
  taken(key: string): boolean {
    return Atomics.load(this.#slots, this.slotOf(key)) === TAKEN;
  }
}
