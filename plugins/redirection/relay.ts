/**
 * Relays one session between the viewer's WebSocket and the device's redirection stream through the
 * mode's codec, with backpressure both ways, the device's keep-alive, the idle bound and byte counts.
 * Either side closing ends it; `end` ends it from here with a reason the viewer is told.
 */
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { SessionCodec } from './modes/mode.js';
import { END_REASONS, type EndReason } from './sessions.js';

/** Bytes queued towards the viewer beyond which the device stream is paused. */
const HIGH_WATER = 1024 * 1024;
const LOW_WATER = 256 * 1024;

export interface RelayOptions {
  ws: WebSocket;
  stream: Duplex;
  /** Device bytes read past the set-up, delivered first. */
  leftover: Buffer;
  codec: SessionCodec;
  idleMs: number;
  /** The reason the device closing gives (KVM: the device's own idle close). */
  deviceClose: EndReason;
  onEnd(reason: EndReason): void;
}

export interface Relay {
  readonly bytesToDevice: number;
  readonly bytesFromDevice: number;
  end(reason: EndReason): void;
}

export function startRelay({ ws, stream, leftover, codec, idleMs, deviceClose, onEnd }: RelayOptions): Relay {
  let bytesToDevice = 0;
  let bytesFromDevice = 0;
  let ended = false;
  let idle: NodeJS.Timeout | undefined;
  const touched = () => {
    clearTimeout(idle);
    idle = setTimeout(() => end('idle'), idleMs);
  };
  const keepAlive = codec.keepAlive ? setInterval(() => stream.write(codec.keepAlive!.message()), codec.keepAlive.intervalMs) : undefined;

  function end(reason: EndReason): void {
    if (ended) return;
    ended = true;
    clearTimeout(idle);
    clearInterval(keepAlive);
    batch.flush();
    stream.destroy();
    const { code, text } = END_REASONS[reason];
    if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, text);
    onEnd(reason);
  }

  const toViewer = (chunk: Buffer) => {
    bytesFromDevice += chunk.length;
    let messages: Buffer[];
    try {
      messages = codec.fromDevice(chunk);
    } catch {
      return end('protocol');
    }
    for (const message of messages) batch.add(message);
  };
  // Device bytes that arrive in one turn of the event loop go to the viewer as one message at its
  // end: a CIRA tunnel's TLS read holds dozens of small CHANNEL_DATA, and a WebSocket message (one
  // writev, one frame for the viewer to parse) per piece cost more than the tunnel itself.
  const batch = createBatch((message) => {
    ws.send(message, { binary: true }, () => {
      if (stream.isPaused() && ws.bufferedAmount < LOW_WATER) stream.resume();
    });
    if (ws.bufferedAmount > HIGH_WATER) stream.pause();
  });

  ws.on('message', (data: Buffer, isBinary: boolean) => {
    touched();
    const bytes = isBinary ? data : Buffer.from(data.toString('utf8'), 'utf8');
    let ok = true;
    for (const message of codec.toDevice(bytes)) {
      bytesToDevice += message.length;
      ok = stream.write(message) && ok;
    }
    if (!ok) {
      ws.pause();
      stream.once('drain', () => ws.resume());
    }
  });
  ws.once('close', () => end('viewer'));
  ws.on('error', () => end('viewer'));
  stream.on('error', () => undefined);
  stream.once('close', () => end(deviceClose));
  stream.once('end', () => end(deviceClose));
  touched();
  if (leftover.length > 0) toViewer(leftover);
  stream.on('data', toViewer);
  stream.resume();

  return {
    get bytesToDevice() {
      return bytesToDevice;
    },
    get bytesFromDevice() {
      return bytesFromDevice;
    },
    end,
  };
}

/** Largest message the batch holds before it sends at once. */
const MAX_BATCH = 256 * 1024;

/** Collects what is added in one tick and hands it on as one buffer at the tick's end (no timer, so no added delay). */
function createBatch(send: (message: Buffer) => void): { add(part: Buffer): void; flush(): void } {
  let parts: Buffer[] = [];
  let bytes = 0;
  const flush = () => {
    if (bytes === 0) return;
    const message = parts.length === 1 ? parts[0]! : Buffer.concat(parts, bytes);
    parts = [];
    bytes = 0;
    send(message);
  };
  return {
    flush,
    add(part) {
      if (part.length === 0) return;
      if (bytes === 0) process.nextTick(flush);
      parts.push(part);
      bytes += part.length;
      if (bytes >= MAX_BATCH) flush();
    },
  };
}
