/**
 * TLS record framing (RFC 5246 section 6.2): the 5-byte header and a reader that cuts a byte stream
 * into whole records, bounded by the largest record the protocol allows.
 */
export const ContentType = { changeCipherSpec: 20, alert: 21, handshake: 22, applicationData: 23 } as const;

/** The record-header version of TLS 1.2, the only version whose records the record layer handles. */
export const TLS12 = 0x0303;

const HEADER_BYTES = 5;
/** Largest plaintext fragment (2^14). */
export const MAX_PLAINTEXT_BYTES = 16_384;
/** Largest protected record body: plaintext plus at most 2,048 bytes of expansion. */
const MAX_RECORD_BODY_BYTES = MAX_PLAINTEXT_BYTES + 2_048;

export interface TlsRecord {
  type: number;
  version: number;
  /** The record body; a view into the received bytes, valid until the next read. */
  body: Buffer;
  /** The whole record, header included, for passing it on unchanged. */
  raw: Buffer;
}

export class RecordTooLargeError extends Error {
  constructor(length: number) {
    super(`TLS record of ${length} bytes exceeds the ${MAX_RECORD_BODY_BYTES}-byte limit`);
  }
}

/** Collects received bytes and hands out complete records; keeps only an incomplete one between reads. */
export class RecordReader {
  private pending: Buffer | null = null;

  /** Appends `chunk` and returns the records it completed. Throws RecordTooLargeError on a bad length. */
  push(chunk: Buffer): TlsRecord[] {
    const data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = null;
    const records: TlsRecord[] = [];
    let offset = 0;
    while (data.length - offset >= HEADER_BYTES) {
      const length = data.readUInt16BE(offset + 3);
      if (length > MAX_RECORD_BODY_BYTES) throw new RecordTooLargeError(length);
      const end = offset + HEADER_BYTES + length;
      if (end > data.length) break;
      records.push({ type: data[offset]!, version: data.readUInt16BE(offset + 1), body: data.subarray(offset + HEADER_BYTES, end), raw: data.subarray(offset, end) });
      offset = end;
    }
    if (offset < data.length) this.pending = Buffer.from(data.subarray(offset));
    return records;
  }

  /** Removes and returns the bytes received that are not a complete record yet. */
  takePending(): Buffer {
    const pending = this.pending ?? Buffer.alloc(0);
    this.pending = null;
    return pending;
  }
}

export function recordHeader(type: number, version: number, length: number): Buffer {
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  header[0] = type;
  header.writeUInt16BE(version, 1);
  header.writeUInt16BE(length, 3);
  return header;
}
