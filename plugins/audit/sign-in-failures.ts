/**
 * Failed and refused sign-ins, which anyone who reaches a door can cause as fast as they like,
 * aggregated into the `sign-in-failures` class: one record per client address, door and window,
 * with the attempts counted and the names tried. The first attempt of a window is written before
 * its answer (as every record is); later ones update the counts in memory, written once a second.
 * At most `maxOpen` windows are open at once: attempts beyond share one record per door (address `*`).
 */
import type { Logger, SignInAttemptedEvent } from '../../core/plugin-api.js';
import type { AuditRecord } from './api.js';
import type { AuditLog } from './audit-log.js';
import type { JsonLinesSink } from './jsonl-sink.js';
import { boundedText } from './redact.js';

const FLUSH_MS = 1000;
const MAX_NAMES = 10;
const DEFAULT_MAX_OPEN = 10_000;

export interface SignInFailureOptions {
  windowSeconds: number;
  maxOpen?: number;
  now?: () => number;
}

interface OpenWindow {
  /** Resolves once the window's record is stored (with its id). */
  stored: Promise<AuditRecord | null>;
  record: Omit<AuditRecord, 'id'> & { id?: string };
  endsAtMs: number;
  dirty: boolean;
}

export interface SignInFailures {
  /** Counts a failed or refused sign-in; resolves once a record of its window is on disk. */
  note(event: SignInAttemptedEvent): Promise<void>;
  /** Writes the counts gathered since the last write (before a query, so that it reads them). */
  flush(): Promise<void>;
  /** Writes what is pending and closes every window. */
  close(): Promise<void>;
}

export function createSignInFailures(log: AuditLog, sink: JsonLinesSink | null, logger: Logger, afterAppend: () => void, options: SignInFailureOptions): SignInFailures {
  const now = options.now ?? Date.now;
  const windowMs = options.windowSeconds * 1000;
  const maxOpen = options.maxOpen ?? DEFAULT_MAX_OPEN;
  const open = new Map<string, OpenWindow>();
  let timer: NodeJS.Timeout | null = null;

  const failed = (err: unknown) => logger.error('audit record could not be written', { action: 'auth.sign-in', error: (err as Error).message });

  const flush = async (closeAll: boolean) => {
    const at = now();
    const dirty: AuditRecord[] = [];
    const ended: OpenWindow[] = [];
    for (const [key, window] of open) {
      if (window.dirty && window.record.id !== undefined) {
        dirty.push(window.record as AuditRecord);
        window.dirty = false;
      }
      if (closeAll || window.endsAtMs <= at) {
        open.delete(key);
        ended.push(window);
      }
    }
    try {
      if (dirty.length > 0) await log.update(dirty.map((r) => ({ ...r, detail: { ...r.detail } })));
      // The SIEM copy gets each window once, with its final counts.
      for (const window of ended) if (sink && window.record.id !== undefined) await sink.write(Promise.resolve(window.record as AuditRecord));
    } catch (err) {
      failed(err);
    }
    if (open.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };

  const start = (key: string, fields: Omit<AuditRecord, 'id'>, endsAtMs: number): OpenWindow => {
    const window: OpenWindow = { record: fields, endsAtMs, dirty: false, stored: Promise.resolve(null) };
    window.stored = log.append({ ...fields, detail: { ...fields.detail } }).then(
      (stored) => {
        window.record.id = stored.id;
        afterAppend();
        return stored;
      },
      (err: unknown) => {
        failed(err);
        return null;
      },
    );
    open.set(key, window);
    if (!timer) {
      timer = setInterval(() => void flush(false), FLUSH_MS);
      timer.unref();
    }
    return window;
  };

  return {
    async note(event) {
      const at = now();
      const windowStart = Math.floor(at / windowMs) * windowMs;
      const name = boundedText(event.user, 128) ?? '';
      let key = `${event.address}\u0000${event.door}\u0000${windowStart}`;
      let address = boundedText(event.address, 64);
      if (!open.has(key) && open.size >= maxOpen) {
        key = `*\u0000${event.door}\u0000${windowStart}`;
        address = '*';
      }
      const existing = open.get(key);
      if (!existing) {
        const fields: Omit<AuditRecord, 'id'> = {
          class: 'sign-in-failures',
          at: new Date(at).toISOString(),
          user: name,
          address,
          action: 'auth.sign-in',
          target: name,
          outcome: 'failure',
          detail: { door: event.door, attempts: 1, failures: event.outcome === 'failure' ? 1 : 0, refused: event.outcome === 'refused' ? 1 : 0, names: [name], lastAt: new Date(at).toISOString(), windowSeconds: options.windowSeconds },
        };
        await start(key, fields, windowStart + windowMs).stored;
        return;
      }
      const detail = existing.record.detail as { attempts: number; failures: number; refused: number; names: string[]; moreNames?: boolean; lastAt: string };
      detail.attempts++;
      if (event.outcome === 'failure') detail.failures++;
      else detail.refused++;
      if (!detail.names.includes(name)) {
        if (detail.names.length < MAX_NAMES) detail.names.push(name);
        else detail.moreNames = true;
      }
      detail.lastAt = new Date(at).toISOString();
      existing.dirty = true;
      await existing.stored;
    },
    async flush() {
      await Promise.all([...open.values()].map((w) => w.stored));
      await flush(false);
    },
    async close() {
      await Promise.all([...open.values()].map((w) => w.stored));
      await flush(true);
    },
  };
}
