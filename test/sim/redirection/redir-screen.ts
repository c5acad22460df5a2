/**
 * The simulated screen behind a device's KVM: a deterministic picture per device (a gradient in its
 * own colours, a bar coloured by what it booted into, one block per key typed), and its encoding
 * into an RFB true-colour pixel format at 8, 16 or 32 bits per pixel.
 */
import { createHash } from 'node:crypto';
import type { DeviceState } from '../device-state.js';

export const SCREEN = { width: 640, height: 400 } as const;
/** Keys drawn: the last this many, one 8x16 block each, 10 pixels apart, from (8, 64). */
const KEY_BLOCKS = 60;
const KEY_ROW = { y: 64, height: 16, width: 8, step: 10, x: 8 } as const;
const BAR_HEIGHT = 40;

export interface PixelFormat {
  bitsPerPixel: 8 | 16 | 32;
  depth: number;
  bigEndian: boolean;
  redMax: number;
  greenMax: number;
  blueMax: number;
  redShift: number;
  greenShift: number;
  blueShift: number;
}

/** AMT's default: 16 bits per pixel, RGB 5:6:5. */
export const DEFAULT_FORMAT: PixelFormat = { bitsPerPixel: 16, depth: 16, bigEndian: false, redMax: 31, greenMax: 63, blueMax: 31, redShift: 11, greenShift: 5, blueShift: 0 };

function seedColour(seed: string): [number, number, number] {
  const h = createHash('sha256').update(seed).digest();
  return [h[0]!, h[1]!, h[2]!];
}

const BAR = { bios: [0, 0, 170], pxe: [0, 128, 0], hdd: [96, 96, 96], 'ider-cd': [0, 128, 128], 'ider-floppy': [0, 128, 128] } as const;

/** The colour of one key's block: a function of its keysym alone. */
export function keyColour(keysym: number): [number, number, number] {
  return [(keysym * 37 + 50) & 255, (keysym * 91 + 20) & 255, (keysym * 173 + 90) & 255];
}

/** Each device's gradient, drawn once (a key press redraws only the bar and the blocks over a copy of it). */
const gradients = new WeakMap<DeviceState, { uuid: string; rgb: Buffer }>();

function gradient(state: DeviceState): Buffer {
  const cached = gradients.get(state);
  if (cached?.uuid === state.config.uuid) return cached.rgb;
  const { width, height } = SCREEN;
  const rgb = Buffer.alloc(width * height * 3);
  const [r0, g0, b0] = seedColour(`${state.config.uuid}/screen`);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 3;
      rgb[at] = (r0 + (x >> 2)) & 255;
      rgb[at + 1] = (g0 + (y >> 2)) & 255;
      rgb[at + 2] = (b0 + ((x ^ y) & 63)) & 255;
    }
  }
  gradients.set(state, { uuid: state.config.uuid, rgb });
  return rgb;
}

/** The picture as 8-bit RGB triplets, row by row. */
export function renderScreen(state: DeviceState): Buffer {
  const { width } = SCREEN;
  const rgb = Buffer.from(gradient(state));
  const bar = state.redirection.optInState === 2 ? [200, 120, 0] : BAR[state.redirection.lastBoot];
  fill(rgb, 0, 0, width, BAR_HEIGHT, bar as unknown as [number, number, number]);
  const typed = state.redirection.typed.slice(-KEY_BLOCKS);
  typed.forEach((keysym, i) => fill(rgb, KEY_ROW.x + i * KEY_ROW.step, KEY_ROW.y, KEY_ROW.width, KEY_ROW.height, keyColour(keysym)));
  return rgb;
}

function fill(rgb: Buffer, x0: number, y0: number, w: number, h: number, [r, g, b]: [number, number, number]): void {
  for (let y = y0; y < y0 + h; y++) {
    for (let x = x0; x < x0 + w; x++) {
      const at = (y * SCREEN.width + x) * 3;
      rgb[at] = r;
      rgb[at + 1] = g;
      rgb[at + 2] = b;
    }
  }
}

/** Where the block of the i-th key drawn sits (tests look there). */
export function keyBlockOrigin(i: number): { x: number; y: number } {
  return { x: KEY_ROW.x + i * KEY_ROW.step, y: KEY_ROW.y };
}

/** The whole picture in `format`, row by row (`bitsPerPixel / 8` bytes per pixel). */
export function encodeScreen(rgb: Buffer, format: PixelFormat): Buffer {
  const bytes = format.bitsPerPixel / 8;
  const out = Buffer.alloc(SCREEN.width * SCREEN.height * bytes);
  // Each channel's 256 values scaled and shifted once (a per-pixel Math.round made a key press cost ~8 ms of the simulator's time).
  const channel = (max: number, shift: number) => Int32Array.from({ length: 256 }, (_, value) => Math.round((value * max) / 255) << shift);
  const [red, green, blue] = [channel(format.redMax, format.redShift), channel(format.greenMax, format.greenShift), channel(format.blueMax, format.blueShift)];
  const big = format.bigEndian;
  for (let p = 0, o = 0; p < rgb.length; p += 3, o += bytes) {
    const value = red[rgb[p]!]! | green[rgb[p + 1]!]! | blue[rgb[p + 2]!]!;
    if (bytes === 1) out[o] = value & 0xff;
    else if (bytes === 2) {
      out[big ? o + 1 : o] = value & 0xff;
      out[big ? o : o + 1] = (value >>> 8) & 0xff;
    } else {
      out[big ? o + 3 : o] = value & 0xff;
      out[big ? o + 2 : o + 1] = (value >>> 8) & 0xff;
      out[big ? o + 1 : o + 2] = (value >>> 16) & 0xff;
      out[big ? o : o + 3] = value >>> 24;
    }
  }
  return out;
}
