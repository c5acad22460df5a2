import { Readable } from 'node:stream';

export const JSON_ARRAY_OPEN = Buffer.from('[');
export const JSON_ARRAY_COMMA = Buffer.from(',');
export const JSON_ARRAY_CLOSE = Buffer.from(']');

/** The items' encoded JSON texts joined into one array body: copies bytes, encodes nothing. */
export function jsonArrayBuffer<T>(items: readonly T[], encode: (item: T) => Buffer): Buffer {
  const parts: Buffer[] = [JSON_ARRAY_OPEN];
  for (let i = 0; i < items.length; i++) {
    if (i > 0) parts.push(JSON_ARRAY_COMMA);
    parts.push(encode(items[i]!));
  }
  parts.push(JSON_ARRAY_CLOSE);
  return Buffer.concat(parts);
}

/**
 * A JSON array rendered in chunks as the client reads it, so a response of any length costs
 * memory for one chunk, not for the whole text.
 */
export function jsonArrayStream<T>(items: readonly T[], encode: (item: T) => Buffer, chunkSize = 500): Readable {
  let next = 0;
  return new Readable({
    read() {
      const end = Math.min(items.length, next + chunkSize);
      const chunk = jsonArrayBuffer(items.slice(next, end), encode);
      // Each chunk is a whole array; the brackets between chunks become commas.
      const first = next === 0;
      const last = end >= items.length;
      this.push(chunk.subarray(first ? 0 : 1, last ? chunk.length : chunk.length - 1));
      if (!last) this.push(JSON_ARRAY_COMMA);
      next = end;
      if (last) this.push(null);
    },
  });
}
