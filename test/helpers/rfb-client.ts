/**
 * A minimal RFB (VNC) client for tests and benchmarks: the 3.8 handshake with security None, pixel
 * formats at 32, 16 and 8 bits per pixel, raw framebuffer updates applied to a local copy, key and
 * pointer events. It runs over any byte stream: a TCP/TLS socket straight to a device's KVM (after
 * the redirection set-up), or the gateway's relay WebSocket (`createWebSocketStream`).
 */
import type { Duplex } from 'node:stream';
import { ByteReader } from '../sim/redirection/byte-reader.js';
import type { PixelFormat } from '../sim/redirection/redir-screen.js';

export const FORMATS: Record<32 | 16 | 8, PixelFormat> = {
  32: { bitsPerPixel: 32, depth: 24, bigEndian: false, redMax: 255, greenMax: 255, blueMax: 255, redShift: 16, greenShift: 8, blueShift: 0 },
  16: { bitsPerPixel: 16, depth: 16, bigEndian: false, redMax: 31, greenMax: 63, blueMax: 31, redShift: 11, greenShift: 5, blueShift: 0 },
  8: { bitsPerPixel: 8, depth: 8, bigEndian: false, redMax: 7, greenMax: 7, blueMax: 3, redShift: 5, greenShift: 2, blueShift: 0 },
};

export interface ServerInit {
  version: string;
  width: number;
  height: number;
  format: PixelFormat;
  name: string;
}

export class RfbClient {
  readonly reader: ByteReader;
  init!: ServerInit;
  format!: PixelFormat;
  framebuffer: Buffer = Buffer.alloc(0);
  /** Bytes of pixel data received in updates. */
  pixelBytes = 0;

  constructor(readonly stream: Duplex) {
    this.reader = new ByteReader(stream);
  }

  async handshake(): Promise<ServerInit> {
    const version = (await this.reader.read(12)).toString('latin1');
    this.stream.write('RFB 003.008\n');
    const count = await this.reader.u8();
    const types = [...(await this.reader.read(count))];
    if (!types.includes(1)) throw new Error(`no security type None: ${types.join(',')}`);
    this.stream.write(Buffer.from([1]));
    if ((await this.reader.read(4)).readUInt32BE(0) !== 0) throw new Error('security result failed');
    this.stream.write(Buffer.from([1]));
    const head = await this.reader.read(24);
    const b = head.subarray(4, 20);
    const format: PixelFormat = { bitsPerPixel: b[0] as 8 | 16 | 32, depth: b[1]!, bigEndian: b[2] !== 0, redMax: b.readUInt16BE(4), greenMax: b.readUInt16BE(6), blueMax: b.readUInt16BE(8), redShift: b[10]!, greenShift: b[11]!, blueShift: b[12]! };
    const name = (await this.reader.read(head.readUInt32BE(20))).toString('latin1');
    this.init = { version, width: head.readUInt16BE(0), height: head.readUInt16BE(2), format, name };
    this.format = format;
    this.framebuffer = Buffer.alloc(this.init.width * this.init.height * (format.bitsPerPixel / 8));
    return this.init;
  }

  setPixelFormat(bits: 32 | 16 | 8): void {
    const f = FORMATS[bits];
    const m = Buffer.alloc(20);
    m[4] = f.bitsPerPixel;
    m[5] = f.depth;
    m[6] = f.bigEndian ? 1 : 0;
    m[7] = 1;
    m.writeUInt16BE(f.redMax, 8);
    m.writeUInt16BE(f.greenMax, 10);
    m.writeUInt16BE(f.blueMax, 12);
    m[14] = f.redShift;
    m[15] = f.greenShift;
    m[16] = f.blueShift;
    this.stream.write(m);
    this.stream.write(Buffer.from([2, 0, 0, 1, 0, 0, 0, 0])); // SetEncodings: raw
    this.format = f;
    this.framebuffer = Buffer.alloc(this.init.width * this.init.height * (f.bitsPerPixel / 8));
  }

  requestUpdate(incremental: boolean, x = 0, y = 0, w = this.init.width, h = this.init.height): void {
    const m = Buffer.alloc(10);
    m[0] = 3;
    m[1] = incremental ? 1 : 0;
    m.writeUInt16BE(x, 2);
    m.writeUInt16BE(y, 4);
    m.writeUInt16BE(w, 6);
    m.writeUInt16BE(h, 8);
    this.stream.write(m);
  }

  /** Reads one FramebufferUpdate (raw rectangles) into the local framebuffer; returns its rectangles. */
  async readUpdate(): Promise<number> {
    const head = await this.reader.read(4);
    if (head[0] !== 0) throw new Error(`expected a FramebufferUpdate, got message ${head[0]}`);
    const rects = head.readUInt16BE(2);
    const bytes = this.format.bitsPerPixel / 8;
    for (let i = 0; i < rects; i++) {
      const r = await this.reader.read(12);
      const [x, y, w, h] = [r.readUInt16BE(0), r.readUInt16BE(2), r.readUInt16BE(4), r.readUInt16BE(6)];
      if (r.readInt32BE(8) !== 0) throw new Error('only raw encoding is expected');
      const data = await this.reader.read(w * h * bytes);
      this.pixelBytes += data.length;
      for (let row = 0; row < h; row++) data.copy(this.framebuffer, ((y + row) * this.init.width + x) * bytes, row * w * bytes, (row + 1) * w * bytes);
    }
    return rects;
  }

  key(keysym: number): void {
    for (const down of [1, 0]) {
      const m = Buffer.alloc(8);
      m[0] = 4;
      m[1] = down;
      m.writeUInt32BE(keysym, 4);
      this.stream.write(m);
    }
  }

  pointer(x: number, y: number, buttons = 0): void {
    const m = Buffer.alloc(6);
    m[0] = 5;
    m[1] = buttons;
    m.writeUInt16BE(x, 2);
    m.writeUInt16BE(y, 4);
    this.stream.write(m);
  }
}
