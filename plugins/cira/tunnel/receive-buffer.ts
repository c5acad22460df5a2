/**
 * A tunnel's received bytes not parsed yet: only the start of an incomplete message, kept as the
 * chunks it came in and joined once the parser's "needs at least n bytes" is met, so that a large
 * message in small records costs linear time. Nothing is kept between complete messages.
 */
export class ReceiveBuffer {
  private chunks: Buffer[] | null = null;
  private bytes = 0;
  /** Bytes the message at the front needs at least; no parse is tried before they are here. */
  private need = 0;
  /** The most bytes held between two reads. */
  peak = 0;

  get size(): number {
    return this.bytes;
  }

  /** Adds a chunk; true when the message at the front may be complete, i.e. time to parse. */
  push(chunk: Buffer): boolean {
    (this.chunks ??= []).push(chunk);
    this.bytes += chunk.length;
    if (this.bytes >= this.need) return true;
    this.peak = Math.max(this.peak, this.bytes);
    return false;
  }

  /** Everything held, as one buffer; null when empty. */
  joined(): Buffer | null {
    const chunks = this.chunks;
    if (!chunks) return null;
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.bytes);
  }

  /** Keeps what follows `offset` of `buf`: the start of a message that needs `need` bytes at least. */
  keep(buf: Buffer, offset: number, need: number): void {
    // A copy, so that the remainder does not pin the whole TLS record it came in.
    const rest = offset >= buf.length ? null : offset === 0 ? buf : Buffer.from(buf.subarray(offset));
    this.chunks = rest ? [rest] : null;
    this.bytes = rest?.length ?? 0;
    this.need = need;
    this.peak = Math.max(this.peak, this.bytes);
  }

  clear(): void {
    this.chunks = null;
    this.bytes = 0;
    this.need = 0;
  }
}
