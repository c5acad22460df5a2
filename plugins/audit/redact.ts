/**
 * Keeps secrets out of audit records: a detail key that names a secret has its value replaced, and
 * a detail is bounded in depth, keys and length so that a record stays small.
 */
import type { AuditDetail } from './api.js';

const SECRET_KEY = /pass(word|phrase)?|secret|token|private.?key|^key$|master.?key|^code$|ticket|authorization|cookie/i;
export const REDACTED = '[redacted]';
const MAX_DEPTH = 4;
const MAX_KEYS = 32;
const MAX_ITEMS = 100;
const MAX_STRING = 512;

function clean(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return value.length > MAX_STRING ? value.slice(0, MAX_STRING) + '…' : value;
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (depth >= MAX_DEPTH) return '[nested]';
  if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map((item) => clean(item, depth + 1));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value).slice(0, MAX_KEYS)) {
      if (inner === undefined) continue;
      // A flag (`passwordChanged: true`) says nothing secret; any other value under such a key might.
      out[key] = SECRET_KEY.test(key) && typeof inner !== 'boolean' && inner !== null ? REDACTED : clean(inner, depth + 1);
    }
    return out;
  }
  return String(value);
}

/** A copy of `detail` fit for the trail: secrets redacted by key name, sizes bounded. */
export function redactDetail(detail: AuditDetail | undefined): AuditDetail {
  return detail ? (clean(detail, 0) as AuditDetail) : {};
}

/** A free-text field (user, target, action) cut to `max` characters, control characters removed. */
export function boundedText(value: string | null | undefined, max: number): string | null {
  if (value === null || value === undefined) return null;
  // eslint-disable-next-line no-control-regex
  const printable = value.replace(/[\u0000-\u001f\u007f]/g, '');
  return printable.length > max ? printable.slice(0, max) : printable;
}
