import { StringDecoder } from 'node:string_decoder';
import { ProtocolError, RECORD_SEPARATOR } from './protocol.js';

/**
 * Splits the bytes a client sends into records (hub messages) on the record separator.
 * Frames and records are independent: a frame may carry several records, and a record may span
 * frames; the unfinished tail is buffered up to `maxRecordBytes`, beyond which the client is in error.
 */
export class RecordReader {
  private readonly decoder = new StringDecoder('utf8');
  private tail = '';

  constructor(private readonly maxRecordBytes: number) {}

  /** Feeds one frame; returns the records it completes, in order (separators removed). */
  push(frame: Buffer): string[] {
    const text = this.tail + this.decoder.write(frame);
    const parts = text.split(RECORD_SEPARATOR);
    this.tail = parts.pop()!;
    // UTF-16 length never exceeds the UTF-8 size, and is free to read.
    if (this.tail.length > this.maxRecordBytes) throw new ProtocolError(`a message exceeds ${this.maxRecordBytes} bytes`);
    return parts;
  }

  /** True when part of a record is waiting for the rest. */
  get pending(): boolean {
    return this.tail.length > 0;
  }
}
