/**
 * Sends presence pings to a whole list of addresses from one UDP socket and collects the pongs for a
 * window, without waiting per host. Sends are paced in small batches and the receive buffer is
 * enlarged: a single 1,000-ping burst loses a fifth of the pongs to the default buffer.
 */
import { createSocket } from 'node:dgram';
import { isIPv4 } from 'node:net';
import { decodePresencePong, encodePresencePing, type RmcpPong } from './rmcp-codec.js';

export interface PongCollectorOptions {
  /** UDP port the devices listen on (623 on real devices). */
  port: number;
  /** Pings per sub-batch (default 50): the pace is one sub-batch per `batchGapMs`. */
  batchSize?: number;
  /** Time per sub-batch (default 10 ms). */
  batchGapMs?: number;
  /** How long to keep listening after the last ping (default 1,000 ms). */
  windowMs?: number;
  /** Requested receive buffer (default 4 MiB; the kernel may cap it). */
  recvBufferBytes?: number;
  /** Stops sending and listening early; what arrived so far is returned. */
  signal?: AbortSignal;
  /** Called for every decoded pong as it arrives. */
  onPong?: (address: string, pong: RmcpPong) => void;
}

/**
 * Catching up after a late timer sends at most this much of the ping rate at once: 100 ms of it, as
 * the TCP probes' bucket (probe-pacer.ts) allows them. A smaller catch-up (it was 4 sub-batches, 40 ms)
 * let the pings of a busy thread fall behind its TCP probes: on a thread whose event-loop turns took
 * hundreds of milliseconds, a batch sent its last ping as its last probe ended, and then waited out
 * its whole pong window with nothing left to send, at every batch boundary of a sweep.
 */
const MAX_BURST_MS = 100;

/**
 * Pings due by now: `batchSize` per `gapMs` since the first sub-batch (paced by rate, not by a fixed
 * pause per sub-batch: on a busy thread timers fire late), at most {@link MAX_BURST_MS} of the rate
 * beyond those `sent`, and never more than `total`.
 */
export function pingsDue(elapsedMs: number, sent: number, total: number, batchSize: number, gapMs: number): number {
  const due = batchSize * (1 + Math.floor(elapsedMs / gapMs));
  const burst = batchSize * Math.max(1, Math.ceil(MAX_BURST_MS / gapMs));
  return Math.min(total, due, sent + burst);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Pings every IPv4 address in `addresses` and returns the decoded pongs by source address. Pongs from
 * addresses not pinged, and datagrams that are not pongs, are ignored.
 */
export async function collectPongs(addresses: readonly string[], options: PongCollectorOptions): Promise<Map<string, RmcpPong>> {
  const targets = [...new Set(addresses.filter((a) => isIPv4(a)))];
  const pongs = new Map<string, RmcpPong>();
  if (targets.length === 0 || options.signal?.aborted) return pongs;
  const wanted = new Set(targets);
  const batchSize = Math.max(1, options.batchSize ?? 50);
  const socket = createSocket({ type: 'udp4' });
  let allAnswered: (() => void) | undefined;
  socket.on('error', () => undefined);
  socket.on('message', (message, rinfo) => {
    if (!wanted.has(rinfo.address) || pongs.has(rinfo.address)) return;
    const pong = decodePresencePong(message);
    if (!pong) return;
    pongs.set(rinfo.address, pong);
    options.onPong?.(rinfo.address, pong);
    if (pongs.size === wanted.size) allAnswered?.();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  try {
    try {
      socket.setRecvBufferSize(options.recvBufferBytes ?? 4 * 1024 * 1024);
    } catch {
      // The kernel refused the size: keep the default buffer, pacing still protects most pongs.
    }
    const pings = Array.from({ length: 256 }, (_, tag) => encodePresencePing(tag));
    const gapMs = Math.max(1, options.batchGapMs ?? 10);
    const started = performance.now();
    let sent = 0;
    while (sent < targets.length && !options.signal?.aborted) {
      const end = pingsDue(performance.now() - started, sent, targets.length, batchSize, gapMs);
      // No send callback: a datagram the kernel takes at once then costs no completion round trip,
      // and a failed send surfaces as the socket's (ignored) 'error'.
      for (; sent < end; sent++) socket.send(pings[sent & 0xff]!, options.port, targets[sent]!);
      if (sent < targets.length) await sleep(gapMs, options.signal);
    }
    if (pongs.size < wanted.size && !options.signal?.aborted) {
      const window = new AbortController();
      allAnswered = () => window.abort();
      const onAbort = (): void => window.abort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      await sleep(options.windowMs ?? 1000, window.signal);
      options.signal?.removeEventListener('abort', onAbort);
    }
  } finally {
    socket.close();
  }
  return pongs;
}
