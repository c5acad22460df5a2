import { JSON_ARRAY_CLOSE, JSON_ARRAY_COMMA, JSON_ARRAY_OPEN } from './json-array-body.js';
import type { Device } from '../api.js';

const BLOCK_SIZE = 64;

interface Block {
  /** The devices it was encoded from, by position: a block is valid while the list still holds them there. */
  devices: Device[];
  /** Their JSON texts joined by commas. */
  bytes: Buffer;
  /** Where each device's text starts; the last entry is one past the end, as if a comma followed. */
  offsets: Uint32Array;
}

function holds(list: readonly Device[], start: number, end: number, devices: Device[]): boolean {
  if (devices.length !== end - start) return false;
  for (let i = 0; i < devices.length; i++) if (devices[i] !== list[start + i]) return false;
  return true;
}

/** Pages of a device list as JSON array bodies, from blocks of devices encoded once. */
export interface EncodedBlocks {
  /** `list[start, end)` as a JSON array, in parts to be sent one after the other (not copied). */
  page(list: readonly Device[], start: number, end: number): Buffer[];
}

/**
 * The list is cut into blocks of 64 positions, each encoded as one buffer, so that a page is two or
 * three slices of them instead of an encode, a lookup and a copy per device. A block checks
 * that the list still holds the same device objects at its positions before it is used (devices
 * are replaced, never mutated), so a change re-encodes only the blocks it touched.
 */
export function createEncodedBlocks(): EncodedBlocks {
  let blocks: Array<Block | undefined> = [];

  const encode = (devices: Device[]): Block => {
    const texts = devices.map((device) => JSON.stringify(device));
    const offsets = new Uint32Array(texts.length + 1);
    for (let i = 0; i < texts.length; i++) offsets[i + 1] = offsets[i]! + Buffer.byteLength(texts[i]!) + 1;
    return { devices, bytes: Buffer.from(texts.join(',')), offsets };
  };

  const blockAt = (list: readonly Device[], index: number): Block => {
    const start = index * BLOCK_SIZE;
    const end = Math.min(list.length, start + BLOCK_SIZE);
    const cached = blocks[index];
    if (cached && holds(list, start, end, cached.devices)) return cached;
    const fresh = encode(list.slice(start, end));
    blocks[index] = fresh;
    return fresh;
  };

  return {
    page(list, start, end) {
      end = Math.min(end, list.length);
      if (blocks.length > Math.ceil(list.length / BLOCK_SIZE)) blocks = blocks.slice(0, Math.ceil(list.length / BLOCK_SIZE));
      const parts: Buffer[] = [JSON_ARRAY_OPEN];
      for (let index = Math.floor(start / BLOCK_SIZE); start < end; index++) {
        const block = blockAt(list, index);
        const base = index * BLOCK_SIZE;
        const to = Math.min(end, base + BLOCK_SIZE);
        if (parts.length > 1) parts.push(JSON_ARRAY_COMMA);
        parts.push(block.bytes.subarray(block.offsets[start - base], block.offsets[to - base]! - 1));
        start = to;
      }
      parts.push(JSON_ARRAY_CLOSE);
      return parts;
    },
  };
}
