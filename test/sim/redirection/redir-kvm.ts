/**
 * A simulated device's KVM: the 0x40/0x41 exchange, then a real RFB server as firmware speaks it
 * (ProtocolVersion `RFB 004.000`, security None since the redirection sign-in authenticated,
 * server name `Intel(r) AMT KVM`, 16 bits per pixel by default, 8/16/32-bit true colour, raw
 * rectangles of at most 64x64, no empty updates). Keys change the screen; a session without
 * keyboard or mouse input is closed after the idle bound.
 */
import type { Duplex } from 'node:stream';
import type { DeviceState } from '../device-state.js';
import type { ByteReader } from './byte-reader.js';
import { idleClose } from './idle-close.js';
import { DEFAULT_FORMAT, encodeScreen, renderScreen, SCREEN, type PixelFormat } from './redir-screen.js';

export const KVM_SERVER_NAME = 'Intel(r) AMT KVM';
const TILE = 64;
const MAX_CUT_TEXT = 64 * 1024;
const MAX_ENCODINGS = 64;

function writeFormat(buffer: Buffer, at: number, f: PixelFormat): void {
  buffer[at] = f.bitsPerPixel;
  buffer[at + 1] = f.depth;
  buffer[at + 2] = f.bigEndian ? 1 : 0;
  buffer[at + 3] = 1;
  buffer.writeUInt16BE(f.redMax, at + 4);
  buffer.writeUInt16BE(f.greenMax, at + 6);
  buffer.writeUInt16BE(f.blueMax, at + 8);
  buffer[at + 10] = f.redShift;
  buffer[at + 11] = f.greenShift;
  buffer[at + 12] = f.blueShift;
}

/** A client's SetPixelFormat, or null for what firmware does not serve (colour maps, odd sizes). */
function readFormat(b: Buffer): PixelFormat | null {
  const bpp = b[0]!;
  if ((bpp !== 8 && bpp !== 16 && bpp !== 32) || b[3] !== 1) return null;
  return { bitsPerPixel: bpp, depth: b[1]!, bigEndian: b[2] !== 0, redMax: b.readUInt16BE(4), greenMax: b.readUInt16BE(6), blueMax: b.readUInt16BE(8), redShift: b[10]!, greenShift: b[11]!, blueShift: b[12]! };
}

function serverInit(): Buffer {
  const name = Buffer.from(KVM_SERVER_NAME, 'latin1');
  const init = Buffer.alloc(24 + name.length);
  init.writeUInt16BE(SCREEN.width, 0);
  init.writeUInt16BE(SCREEN.height, 2);
  writeFormat(init, 4, DEFAULT_FORMAT);
  init.writeUInt32BE(name.length, 20);
  name.copy(init, 24);
  return init;
}

interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** One FramebufferUpdate of `rect` in raw rectangles of at most 64x64. */
function rawUpdate(encoded: Buffer, bytes: number, rect: Rect): Buffer {
  const tiles: Rect[] = [];
  for (let ty = rect.y; ty < rect.y + rect.h; ty += TILE) {
    for (let tx = rect.x; tx < rect.x + rect.w; tx += TILE) tiles.push({ x: tx, y: ty, w: Math.min(TILE, rect.x + rect.w - tx), h: Math.min(TILE, rect.y + rect.h - ty) });
  }
  const size = 4 + tiles.reduce((sum, t) => sum + 12 + t.w * t.h * bytes, 0);
  const out = Buffer.allocUnsafe(size);
  out[0] = 0;
  out[1] = 0;
  out.writeUInt16BE(tiles.length, 2);
  let at = 4;
  for (const t of tiles) {
    out.writeUInt16BE(t.x, at);
    out.writeUInt16BE(t.y, at + 2);
    out.writeUInt16BE(t.w, at + 4);
    out.writeUInt16BE(t.h, at + 6);
    out.writeInt32BE(0, at + 8);
    at += 12;
    for (let row = t.y; row < t.y + t.h; row++) {
      const from = (row * SCREEN.width + t.x) * bytes;
      at += encoded.copy(out, at, from, from + t.w * bytes);
    }
  }
  return out;
}

function clip(x: number, y: number, w: number, h: number): Rect | null {
  const x2 = Math.min(SCREEN.width, x + w);
  const y2 = Math.min(SCREEN.height, y + h);
  return x < x2 && y < y2 ? { x, y, w: x2 - x, h: y2 - y } : null;
}

export async function serveKvm(state: DeviceState, reader: ByteReader, socket: Duplex): Promise<void> {
  const { redirection } = state;
  const setup = await reader.read(8);
  if (setup[0] !== 0x40) return;
  socket.write(Buffer.from([0x41, 1, 0, 0, 0, 0, 0, 0]));
  socket.write('RFB 004.000\n');
  const version = (await reader.read(12)).toString('latin1');
  if (!/^RFB 00[34]\.00\d\n$/.test(version)) return;
  if (version === 'RFB 003.003\n') socket.write(Buffer.from([0, 0, 0, 1]));
  else {
    socket.write(Buffer.from([1, 1]));
    if ((await reader.u8()) !== 1) return;
    socket.write(Buffer.from([0, 0, 0, 0]));
  }
  await reader.read(1); // ClientInit (shared flag)
  socket.write(serverInit());

  let format = DEFAULT_FORMAT;
  let encoded: Buffer | null = null;
  let changed = false;
  let parked: Rect | null = null;
  const send = (rect: Rect) => {
    encoded ??= encodeScreen(renderScreen(state), format);
    changed = false;
    if (!socket.destroyed) socket.write(rawUpdate(encoded, format.bitsPerPixel / 8, rect));
  };
  const unsubscribe = redirection.onScreenChange(() => {
    encoded = null;
    changed = true;
    if (parked) {
      const rect = parked;
      parked = null;
      send(rect);
    }
  });
  const idle = idleClose(socket, redirection.timeouts.kvmIdleMs, redirection.counters);
  try {
    for (;;) {
      const type = await reader.u8();
      if (type === 0) {
        const next = readFormat((await reader.read(19)).subarray(3));
        if (!next) return;
        format = next;
        encoded = null;
      } else if (type === 2) {
        const head = await reader.read(3);
        const count = head.readUInt16BE(1);
        if (count > MAX_ENCODINGS) return;
        await reader.read(count * 4);
      } else if (type === 3) {
        const b = await reader.read(9);
        const rect = clip(b.readUInt16BE(1), b.readUInt16BE(3), b.readUInt16BE(5), b.readUInt16BE(7));
        // An incremental request with nothing new waits for a change: firmware never sends an empty update.
        if (rect && (b[0] === 0 || changed)) send(rect);
        else if (rect) parked = rect;
      } else if (type === 4) {
        const b = await reader.read(7);
        idle.touched();
        if (b[0] === 1) redirection.keyPressed(b.readUInt32BE(3));
      } else if (type === 5) {
        await reader.read(5);
        idle.touched();
      } else if (type === 6) {
        const length = (await reader.read(7)).readUInt32BE(3);
        if (length > MAX_CUT_TEXT) return;
        await reader.read(length);
      } else return;
    }
  } finally {
    unsubscribe();
    idle.stop();
  }
}
