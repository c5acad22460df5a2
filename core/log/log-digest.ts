/**
 * Rate-limited warnings about what an address keeps doing (failed sign-ins, refused connections):
 * the first event of a key in an interval is written at once, the rest of that interval are counted
 * and written as one summary line when it ends. At most `maxKeys` keys per interval; beyond, events
 * share one key (`*`), so a flood from many addresses costs bounded memory and lines.
 */
import type { Logger } from './logger.js';

export interface LogDigestOptions {
  logger: Logger;
  /** The line of the first event (its fields as given). */
  message: string;
  /** The summary line: the last event's fields plus `count` and `intervalSeconds`. */
  summary: string;
  intervalMs: number;
  maxKeys?: number;
  /** Fields that replace the key's own on the shared overflow summary (default: `remoteAddress: 'other addresses'`). */
  overflowFields?: Record<string, unknown>;
}

export interface LogDigest {
  note(key: string, fields: Record<string, unknown>): void;
  /** Writes the summaries due and stops the timer. */
  close(): void;
}

const OVERFLOW_KEY = '*';

export function createLogDigest(options: LogDigestOptions): LogDigest {
  const maxKeys = options.maxKeys ?? 1000;
  const overflowFields = options.overflowFields ?? { remoteAddress: 'other addresses' };
  const counted = new Map<string, { count: number; fields: Record<string, unknown> }>();
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    for (const { count, fields } of counted.values()) {
      if (count > 0) options.logger.warn(options.summary, { ...fields, count, intervalSeconds: options.intervalMs / 1000 });
    }
    counted.clear();
    if (timer) clearInterval(timer);
    timer = null;
  };
  return {
    note(key, fields) {
      const at = counted.has(key) || counted.size < maxKeys ? key : OVERFLOW_KEY;
      const entry = counted.get(at);
      if (entry) {
        entry.count++;
        entry.fields = at === OVERFLOW_KEY ? { ...fields, ...overflowFields } : fields;
        return;
      }
      counted.set(at, { count: 0, fields });
      options.logger.warn(options.message, fields);
      if (!timer) {
        timer = setInterval(flush, options.intervalMs);
        timer.unref();
      }
    },
    close: flush,
  };
}

const MAX_NAME_CHARS = 64;

/** A name a client sent, fit for a log line: printable ASCII only (others become `?`), at most 64 characters. */
export function loggableName(name: string): string {
  const printable = name.slice(0, MAX_NAME_CHARS).replace(/[^\x20-\x7e]/g, '?');
  return name.length > MAX_NAME_CHARS ? `${printable}… (${name.length} characters)` : printable;
}
