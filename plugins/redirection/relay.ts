/**
 * Relays one session between the viewer's WebSocket and the device's redirection stream through the
 * mode's codec, with backpressure both ways, the device's keep-alive, the idle bound and byte counts.
 * Either side closing ends it; `end` ends it from here with a reason the viewer is told.
 */
import type { Duplex, Writable } from 'node:stream';
import type { WebSocket } from 'ws';
import type { SlabReads } from '../../workers/amt/redirection/slab-reads.js';
import type { SessionCodec } from './modes/mode.js';
import { END_REASONS, type EndReason } from './sessions.js';

/** Bytes queued towards the viewer beyond which the device stream is paused. */
const HIGH_WATER = 1024 * 1024;
const LOW_WATER = 256 * 1024;

export interface RelayOptions {
  ws: WebSocket;
  /** The socket under `ws` (the upgraded HTTP connection): corked while one turn's messages are written. */
  viewerSocket: Writable;
  stream: Duplex;
  /** Set when `stream` reads into reused slabs: its bytes come through these, not 'data' events. */
  slabReads?: SlabReads | null;
  /** Device bytes read past the set-up, delivered first. */
  leftover: Buffer;
  codec: SessionCodec;
  idleMs: number;
  /** The reason the device closing gives (KVM: the device's own idle close). */
  deviceClose: EndReason;
  /**
   * Called once when the session ends, with the bytes relayed each way. It may be called before
   * `startRelay` returns: a codec can refuse `leftover` at once.
   */
  onEnd(reason: EndReason, bytes: RelayedBytes): void;
}

export interface RelayedBytes {
  readonly bytesToDevice: number;
  readonly bytesFromDevice: number;
}

export interface Relay extends RelayedBytes {
  end(reason: EndReason): void;
}

export function startRelay({ ws, viewerSocket, stream, slabReads, leftover, codec, idleMs, deviceClose, onEnd }: RelayOptions): Relay {
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
    onEnd(reason, { bytesToDevice, bytesFromDevice });
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
  /** A read in a reused slab: sent as it is when the codec passes it through, else copied first. */
  const slabToViewer = (bytes: Buffer, release: () => void) => {
    if (!codec.passThrough || ended) {
      if (!ended) toViewer(Buffer.from(bytes));
      return release();
    }
    bytesFromDevice += bytes.length;
    batch.add(bytes, release);
  };
  // Device reads of 8 KiB or more are WebSocket messages of their own, sent at once (smaller ones
  // joined), and the viewer's socket stays corked until the end of this turn of the event loop: what
  // libuv read in one go (up to 32 reads of 64 KiB from a TCP socket, a dozen TLS records from a
  // tunnel) leaves in one writev, not one each, with no timer. MAX_TURN_BYTES bounds what waits.
  const batch = createTurnWriter(viewerSocket, (message, release) => {
    ws.send(message, { binary: true }, () => {
      release?.();
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
  if (slabReads) slabReads.attach(slabToViewer);
  else stream.on('data', toViewer);
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

/** Bytes written to the corked viewer socket after which it is uncorked within the turn. */
const MAX_TURN_BYTES = 256 * 1024;
/** Reads smaller than this are joined with their neighbours of the same turn into one message. */
const JOIN_BELOW = 8 * 1024;

type Release = (() => void) | undefined;

/**
 * Sends what is added into `socket`, corked from the first part of a turn of the event loop until
 * the turn's end (setImmediate runs after the poll phase's reads) or MAX_TURN_BYTES. A part of
 * JOIN_BELOW or more is a message of its own (no copy); smaller ones are joined until they reach it
 * (a browser viewer pays per message: a tunnel's small CHANNEL_DATA would be hundreds a frame).
 * A part's `release` (it is in reused memory) goes with the message that carries it, or is called
 * once a joined message has copied it.
 */
function createTurnWriter(socket: Writable, send: (message: Buffer, release: Release) => void): { add(part: Buffer, release?: () => void): void; flush(): void } {
  let corked = false;
  let turnBytes = 0;
  let small: Buffer[] = [];
  let releases: Array<() => void> = [];
  let smallBytes = 0;
  const sendSmall = () => {
    if (smallBytes === 0) return;
    const [message, release] = small.length === 1 ? [small[0]!, releases[0]] : [Buffer.concat(small, smallBytes), undefined];
    if (small.length > 1) for (const joined of releases) joined();
    small = [];
    releases = [];
    smallBytes = 0;
    send(message, release);
  };
  const flush = () => {
    sendSmall();
    if (!corked) return;
    corked = false;
    socket.uncork();
  };
  return {
    flush,
    add(part, release) {
      if (part.length === 0) return release?.();
      if (!corked) {
        corked = true;
        turnBytes = 0;
        socket.cork();
        setImmediate(flush);
      }
      if (part.length >= JOIN_BELOW) {
        sendSmall();
        send(part, release);
      } else {
        small.push(part);
        // A part in reused memory goes back once joined into a message (a copy), or with its message when alone.
        if (release) releases.push(release);
        smallBytes += part.length;
        if (smallBytes >= JOIN_BELOW) sendSmall();
      }
      turnBytes += part.length;
      if (turnBytes >= MAX_TURN_BYTES) flush();
    },
  };
}
