/**
 * Reads what a connection sends before its payload (the start of a TLS handshake, a PROXY v2
 * header) until `judge` decides, within `timeoutMs` and `maxBytes`. Accepted: the bytes the judge
 * did not consume are put back and the socket is left paused for its next owner. Refused, too
 * long or too slow: the socket is destroyed at once.
 */
import type { Socket } from 'node:net';

export type PreludeVerdict<T> = { kind: 'need-more' } | { kind: 'refused'; reason: string } | { kind: 'accepted'; value: T; consumed: number };

export interface PreludeOptions<T> {
  judge(bytes: Buffer): PreludeVerdict<T>;
  timeoutMs: number;
  maxBytes: number;
  accepted(value: T): void;
  refused(reason: string): void;
}

export function readPrelude<T>(raw: Socket, options: PreludeOptions<T>): void {
  let seen: Buffer = Buffer.alloc(0);
  const timer = setTimeout(() => refuse(`nothing decisive within ${options.timeoutMs} ms`), options.timeoutMs);
  const onClose = () => finish();
  raw.on('data', onData);
  raw.once('close', onClose);

  function finish(): void {
    clearTimeout(timer);
    raw.off('data', onData);
    raw.off('close', onClose);
  }
  function refuse(reason: string): void {
    finish();
    raw.destroy();
    options.refused(reason);
  }
  function onData(chunk: Buffer): void {
    seen = seen.length === 0 ? chunk : Buffer.concat([seen, chunk]);
    const verdict = options.judge(seen);
    if (verdict.kind === 'refused') return refuse(verdict.reason);
    if (verdict.kind === 'need-more') {
      if (seen.length >= options.maxBytes) refuse(`${seen.length} bytes without a decision`);
      return;
    }
    finish();
    raw.pause();
    if (verdict.consumed < seen.length) raw.unshift(seen.subarray(verdict.consumed));
    options.accepted(verdict.value);
  }
}
