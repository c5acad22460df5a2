/**
 * Reads of a plain TCP socket into reused 64 KiB slabs (net's `onread`), for a stream that carries
 * megabytes a second (a KVM screen). Without it Node allocates a fresh 64 KiB buffer for every read
 * and frees it only at the next GC, tens of MB later; the allocator gives that memory back to the
 * kernel, and the next reads fault it in again, page by page: on a VM whose free pages go back to
 * the host that was 100-200 faults and 3-5 ms of CPU per MB relayed (BENCHMARKS.md, "Relay cost and
 * page faults"). Slabs come from one pool for the process and go back to it once their bytes are
 * written on; memory the pool keeps is bounded (POOL_SLABS).
 *
 * Until a sink is attached (the handshake), each read is emitted as a 'data' event of its own copy,
 * so that exact-length readers work unchanged; `pause()`/`resume()` of the socket stop and restart
 * its reads in both modes.
 */
import type { OnReadOpts, Socket } from 'node:net';

const SLAB_BYTES = 64 * 1024;
/** Free slabs kept for the next reads of any socket (2 MiB); more are left to the GC. */
const POOL_SLABS = 32;
const pool: Buffer[] = [];

function takeSlab(): Buffer {
  return pool.pop() ?? Buffer.allocUnsafeSlow(SLAB_BYTES);
}

function giveSlab(slab: Buffer): void {
  if (pool.length < POOL_SLABS) pool.push(slab);
}

/**
 * Where read bytes go once attached: `bytes` is a view of a slab that stays valid until `release()`
 * is called (call it once the bytes are written on or copied).
 */
export type SlabSink = (bytes: Buffer, release: () => void) => void;

export class SlabReads {
  #current = takeSlab();
  #sink: SlabSink | null = null;
  #socket: Socket | null = null;

  /** The `onread` option of `net.connect`; `bind` the socket it made before it reads. */
  readonly onread: OnReadOpts = {
    buffer: () => this.#current,
    callback: (nread) => {
      this.#deliver(nread);
      return true;
    },
  };

  bind(socket: Socket): void {
    this.#socket = socket;
  }

  /** From now on reads go to `sink` as views of slabs, not as 'data' events. */
  attach(sink: SlabSink): void {
    this.#sink = sink;
  }

  #deliver(nread: number): void {
    const slab = this.#current;
    this.#current = takeSlab();
    const bytes = slab.subarray(0, nread);
    if (!this.#sink) {
      this.#socket?.emit('data', Buffer.from(bytes));
      giveSlab(slab);
      return;
    }
    let released = false;
    this.#sink(bytes, () => {
      if (released) return;
      released = true;
      giveSlab(slab);
    });
  }
}
