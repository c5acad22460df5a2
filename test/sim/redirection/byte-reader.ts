/** Reads exact byte counts from a stream (the simulator's own, independent of the gateway's). */
import type { Duplex } from 'node:stream';

export class StreamEnded extends Error {
  constructor() {
    super('stream ended');
  }
}

export class ByteReader {
  #chunks: Buffer[] = [];
  #length = 0;
  #waiter: { n: number; resolve: (b: Buffer) => void; reject: (e: Error) => void } | null = null;
  #ended = false;

  constructor(stream: Duplex) {
    stream.on('data', (chunk: Buffer) => {
      this.#chunks.push(chunk);
      this.#length += chunk.length;
      this.#serve();
    });
    const end = () => {
      this.#ended = true;
      this.#serve();
    };
    stream.once('end', end);
    stream.once('close', end);
    stream.once('error', end);
  }

  /** Exactly `n` bytes; rejects with StreamEnded when the stream ends first. */
  read(n: number): Promise<Buffer> {
    if (this.#waiter) return Promise.reject(new Error('one read at a time'));
    return new Promise((resolve, reject) => {
      this.#waiter = { n, resolve, reject };
      this.#serve();
    });
  }

  async u8(): Promise<number> {
    return (await this.read(1))[0]!;
  }

  #serve(): void {
    const waiter = this.#waiter;
    if (!waiter) return;
    if (this.#length >= waiter.n) {
      this.#waiter = null;
      waiter.resolve(this.#take(waiter.n));
    } else if (this.#ended) {
      this.#waiter = null;
      waiter.reject(new StreamEnded());
    }
  }

  #take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    const first = this.#chunks[0]!;
    if (first.length >= n) {
      this.#chunks[0] = first.subarray(n);
      if (this.#chunks[0].length === 0) this.#chunks.shift();
      this.#length -= n;
      return first.subarray(0, n);
    }
    // Only the chunks the read needs are copied (a large backlog is not concatenated on every read).
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const chunk = this.#chunks[0]!;
      const take = Math.min(chunk.length, n - filled);
      chunk.copy(out, filled, 0, take);
      filled += take;
      if (take === chunk.length) this.#chunks.shift();
      else this.#chunks[0] = chunk.subarray(take);
    }
    this.#length -= n;
    return out;
  }
}
