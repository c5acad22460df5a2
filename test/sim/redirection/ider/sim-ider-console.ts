/**
 * The simulator's own IDE-R console: serves an image file to a device over a signed-in IDE-R stream,
 * the way a console program on the operator's machine does (the reference the gateway is measured
 * against in `npm run bench -- ider`). Independent of the gateway's server: its own framing of the
 * messages in PROTOCOL terms, the commands a BIOS and an installer send, reads from disk in pieces.
 */
import type { Duplex } from 'node:stream';
import { open } from 'node:fs/promises';

const HEADER = 34;

export interface ConsoleOptions {
  /** Image bytes read and sent at a time. */
  pieceBytes: number;
}

/** Serves `path` as the CD-ROM until the stream closes; resolves then. */
export async function serveImageDirectly(stream: Duplex, leftover: Buffer, path: string, options: ConsoleOptions): Promise<void> {
  const file = await open(path, 'r');
  const size = (await file.stat()).size;
  const blocks = Math.ceil(size / 2048);
  let seq = 0;
  let readBuffer = 8192;
  let attention = true;
  let pending: Buffer = leftover;
  let chain = Promise.resolve();
  const message = (type: number, length: number, attributes = 0) => {
    const m = Buffer.alloc(length);
    m[0] = type;
    m[3] = attributes;
    m.writeUInt32LE(seq++ >>> 0, 4);
    return m;
  };
  const status = (sense?: [number, number, number]) => {
    const m = message(0x51, 31, 2);
    m.set(sense ? [0x87, sense[0] << 4, 3, 0, 0, 0, 0xb0, 0x51] : [0xc5, 0, 3, 0, 0, 0, 0xb0, 0x50], 20);
    if (sense) m.set(sense, 28);
    return m;
  };
  /** One buffer holding every DATA_TO_HOST piece of `data` (the last ends the command). */
  const dataMessages = (data: Buffer, last: boolean) => {
    const count = Math.ceil(data.length / readBuffer);
    const out = Buffer.alloc(data.length + count * HEADER);
    let at = 0;
    for (let i = 0; i < count; i++) {
      const part = data.subarray(i * readBuffer, (i + 1) * readBuffer);
      const end = last && i === count - 1;
      out[at] = 0x54;
      out[at + 3] = end ? 2 : 0;
      out.writeUInt32LE(seq++ >>> 0, at + 4);
      out.writeUInt16LE(part.length, at + 9);
      out.set([0xb5, 0, 2, 0, part.length & 0xff, part.length >> 8, 0xb0, 0x58], at + 12);
      if (end) out.set([0x85, 0, 3, 0, 0, 0, 0xb0, 0x50], at + 20);
      part.copy(out, at + HEADER);
      at += HEADER + part.length;
    }
    return out;
  };
  const write = (bytes: Buffer) => (stream.write(bytes) ? Promise.resolve() : new Promise<void>((resolve) => stream.once('drain', resolve)));
  const read = async (lba: number, count: number) => {
    if (lba + count > blocks) return write(status([5, 0x21, 0]));
    if (count === 0) return write(status());
    let position = lba * 2048;
    let remaining = count * 2048;
    while (remaining > 0) {
      const length = Math.min(remaining, options.pieceBytes);
      const piece = Buffer.alloc(length);
      await file.read(piece, 0, length, position);
      remaining -= length;
      position += length;
      await write(dataMessages(piece, remaining === 0));
    }
  };
  const command = async (cdb: Buffer) => {
    switch (cdb[0]) {
      case 0x00:
        if (attention) {
          attention = false;
          return write(status([6, 0x28, 0]));
        }
        return write(status());
      case 0x03:
        return write(dataMessages(Buffer.from([0x70, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), true));
      case 0x12: {
        const inquiry = Buffer.alloc(36);
        inquiry.set([0x05, 0x80, 0, 2, 31]);
        inquiry.write('SIMCON  Image CD-ROM    0001', 8, 'latin1');
        return write(dataMessages(inquiry, true));
      }
      case 0x25: {
        const capacity = Buffer.alloc(8);
        capacity.writeUInt32BE(blocks - 1, 0);
        capacity.writeUInt32BE(2048, 4);
        return write(dataMessages(capacity, true));
      }
      case 0x5a:
        return write(dataMessages(Buffer.from([0, 6, 1, 0x80, 0, 0, 0, 0]), true));
      case 0x28:
        return read(cdb.readUInt32BE(2), cdb.readUInt16BE(7));
      case 0xa8:
        return read(cdb.readUInt32BE(2), cdb.readUInt32BE(6));
      case 0x0a:
      case 0x2a:
      case 0xaa:
        return write(status([7, 0x27, 0]));
      default:
        return write(status([5, 0x20, 0]));
    }
  };
  const lengthOf = (b: Buffer): number => {
    if (b.length < 8) return 0;
    const fixed: Record<number, number> = { 0x43: 8, 0x44: 8, 0x45: 8, 0x4b: 8, 0x46: 9, 0x4a: 11, 0x49: 13, 0x50: 28 };
    const type = b[0]!;
    if (fixed[type]) return b.length >= fixed[type] ? fixed[type] : 0;
    if (type === 0x41) return b.length >= 30 && b.length >= 30 + b[29]! ? 30 + b[29]! : 0;
    throw new Error(`unexpected device message 0x${type.toString(16)}`);
  };
  const heartbeat = setInterval(() => stream.write(message(0x4b, 8)), 10_000);
  try {
    const openSession = message(0x40, 18);
    openSession.writeUInt16LE(30_000, 8); // receive timeout
    openSession.writeUInt16LE(20_000, 12); // heartbeat
    openSession.writeUInt32LE(1, 14);
    stream.write(openSession);
    const attach = message(0x48, 13);
    attach[8] = 3; // set register state: enabled, on the next reboot
    attach.writeUInt32LE(0x09, 9);
    stream.write(attach);
    await new Promise<void>((resolve) => {
      const take = (chunk: Buffer) => {
        pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
        for (let n = lengthOf(pending); n > 0; n = lengthOf(pending)) {
          const m = pending.subarray(0, n);
          pending = pending.subarray(n);
          if (m[0] === 0x41) readBuffer = m.readUInt16LE(16);
          else if (m[0] === 0x44) stream.write(message(0x45, 8));
          else if (m[0] === 0x46) stream.write(message(0x47, 8));
          else if (m[0] === 0x43) stream.end();
          else if (m[0] === 0x50) {
            const cdb = Buffer.from(m.subarray(16, 28));
            chain = chain.then(() => command(cdb));
          }
        }
      };
      stream.on('data', take);
      stream.once('close', resolve);
      stream.resume(); // the sign-in left the stream paused
      if (pending.length) {
        const first = pending;
        pending = Buffer.alloc(0);
        take(first);
      }
    });
  } finally {
    clearInterval(heartbeat);
    await chain.catch(() => undefined);
    await file.close();
  }
}
