/**
 * A CHANNEL_DATA message whose payload spans several reads (a 16 KiB piece in 16 KiB TLS records
 * always does) is handed on piece by piece as it arrives, instead of being kept, copied and joined
 * until whole and then parsed: the channel is a byte stream, so its reader sees the same bytes, in
 * the same order, sooner, and the tunnel holds no partial payload. Only the 9-byte header has to be
 * whole; a message the parser would refuse (longer than the limit) is left to the parser.
 */
import { ApfType } from '../apf/apf-protocol.js';

/** CHANNEL_DATA: type byte, recipient channel (u32), payload length (u32), payload. */
const HEADER_BYTES = 9;

export interface DataPiece {
  type: typeof ApfType.CHANNEL_DATA;
  recipient: number;
  data: Buffer;
}

export class PartialChannelData {
  private recipient = 0;
  /** Payload bytes of the started message still to come; 0 when none is started. */
  private remaining = 0;

  get active(): boolean {
    return this.remaining > 0;
  }

  /**
   * If a CHANNEL_DATA starts at `offset` of `buf` with its header whole but not its payload (and a
   * length within `maxPayload`), hands on the payload bytes that are here and returns true: the rest
   * of `buf` is consumed. Otherwise returns false and leaves the message to the parser (which also
   * refuses one longer than `maxMessageBytes`, header included).
   */
  start(buf: Buffer, offset: number, maxMessageBytes: number, deliver: (piece: DataPiece) => void): boolean {
    if (buf[offset] !== ApfType.CHANNEL_DATA || buf.length - offset < HEADER_BYTES) return false;
    const length = buf.readUInt32BE(offset + 5);
    const here = buf.length - offset - HEADER_BYTES;
    if (HEADER_BYTES + length > maxMessageBytes || here >= length) return false;
    this.recipient = buf.readUInt32BE(offset + 1);
    this.remaining = length - here;
    if (here > 0) deliver({ type: ApfType.CHANNEL_DATA, recipient: this.recipient, data: buf.subarray(offset + HEADER_BYTES) });
    return true;
  }

  /** Hands on the started message's next bytes from the start of `chunk`; returns what follows them. */
  continue(chunk: Buffer, deliver: (piece: DataPiece) => void): Buffer {
    const take = Math.min(this.remaining, chunk.length);
    this.remaining -= take;
    deliver({ type: ApfType.CHANNEL_DATA, recipient: this.recipient, data: take === chunk.length ? chunk : chunk.subarray(0, take) });
    return chunk.subarray(take);
  }

  clear(): void {
    this.remaining = 0;
  }
}
