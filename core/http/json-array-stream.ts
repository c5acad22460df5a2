import { Readable } from 'node:stream';

/**
 * A JSON array rendered in chunks as the client reads it, so a response of any length costs
 * memory for one chunk, not for the whole text.
 */
export function jsonArrayStream<T>(items: readonly T[], serialise: (item: T) => string = (item) => JSON.stringify(item), chunkSize = 500): Readable {
  let next = 0;
  return new Readable({
    read() {
      if (next === 0 && items.length === 0) {
        this.push('[]');
        this.push(null);
        return;
      }
      const end = Math.min(items.length, next + chunkSize);
      let text = next === 0 ? '[' : ',';
      text += items.slice(next, end).map(serialise).join(',');
      next = end;
      if (next >= items.length) text += ']';
      this.push(text);
      if (next >= items.length) this.push(null);
    },
  });
}
