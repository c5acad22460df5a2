/**
 * Exact-length reads from a byte stream, for the redirection handshake. Once the handshake is over,
 * `release()` hands back what was read ahead, and the stream is the relay's.
 */
import type { Duplex } from 'node:stream';
import { AmtError } from '../errors.js';

export class StreamReader {
  #chunks: Buffer[] = [];
  #length = 0;
  #waiter: { n: number; resolve: (b: Buffer) => void; reject: (e: Error) => void } | null = null;
  #ended = false;
  readonly #onData = (chunk: Buffer) => {
    this.#chunks.push(chunk);
    this.#length += chunk.length;
    this.#serve();
  };
  readonly #onEnd = () => {
    this.#ended = true;
    this.#serve();
  };

  constructor(
    private readonly stream: Duplex,
    private readonly label: string,
  ) {
    stream.on('data', this.#onData);
    stream.once('end', this.#onEnd);
    stream.once('close', this.#onEnd);
  }

  /** Exactly `n` bytes; rejects with `AMT_ERR_CONNECTION_LOST` when the stream ends first. */
  read(n: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.#waiter = { n, resolve, reject };
      this.#serve();
    });
  }

  /** Stops reading; returns the bytes read ahead, which belong to what follows the handshake. */
  release(): Buffer {
    this.stream.off('data', this.#onData);
    this.stream.off('end', this.#onEnd);
    this.stream.off('close', this.#onEnd);
    this.stream.pause();
    const rest = Buffer.concat(this.#chunks);
    this.#chunks = [];
    this.#length = 0;
    return rest;
  }

  #serve(): void {
    const waiter = this.#waiter;
    if (!waiter) return;
    if (this.#length >= waiter.n) {
      this.#waiter = null;
      const all = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
      this.#chunks = all.length > waiter.n ? [all.subarray(waiter.n)] : [];
      this.#length -= waiter.n;
      waiter.resolve(all.subarray(0, waiter.n));
    } else if (this.#ended) {
      this.#waiter = null;
      waiter.reject(new AmtError('AMT_ERR_CONNECTION_LOST', `${this.label} closed the redirection connection`));
    }
  }
}
