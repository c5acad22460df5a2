/**
 * Serves a signed-in IDE-R session from images: cuts the device's messages from the stream, answers
 * each ATAPI command (scsi-commands.ts), sends read data in pieces no larger than the device's read
 * buffer, honours the socket's back-pressure (a session holds at most two pieces of the image in
 * memory, in two buffers it reuses), answers pings and bus resets, sends heartbeats while it has nothing else to send, and
 * ends on the device's close, the device's silence, the idle bound or `end()`.
 */
import type { Duplex } from 'node:stream';
import { AmtError } from '../../errors.js';
import { Drive, type CommandAnswer, type Sense } from './scsi-commands.js';
import type { MediumKind } from './scsi-data.js';
import { geometryOf } from './scsi-data.js';
import { DATA_HEADER, decodeDeviceMessage, deviceMessageLength, DRIVE, IDER, type DeviceMessage, type DriveSelect, type IderEncoder } from './ider-wire.js';

/** An image the session serves: its size, and positional reads from it (from disk, never whole in memory). */
export interface IderMedium {
  kind: MediumKind;
  sizeBytes: number;
  /** Reads up to `length` bytes at `position` into `into` at `offset`; returns the bytes read. */
  read(into: Buffer, offset: number, length: number, position: number): Promise<number>;
}

export interface IderServeOptions {
  /** Send a heartbeat when nothing was sent for this long. */
  heartbeatMs: number;
  /** The device is gone when it sends nothing (not even a heartbeat) for this long. */
  silenceMs: number;
  /** The session ends when the device asks for nothing for this long. */
  idleMs: number;
  /** Image bytes read and sent at a time (rounded down to whole device pieces). */
  pieceBytes: number;
}

export type IderEndReason = 'device' | 'silent' | 'idle' | 'protocol' | 'deleted' | 'shutdown' | 'forbidden';

export interface IderEnd {
  reason: IderEndReason;
  /** What broke the protocol (reason `protocol`), without any secret. */
  detail?: string;
}

const MEDIUM_ERROR: Sense = { key: 0x03, asc: 0x11, ascq: 0 };
/** The most bytes held while a device message is incomplete (DATA_FROM_HOST: 14 + 65535). */
const MAX_PENDING = 14 + 0xffff;
const CLOSE_GRACE_MS = 1000;

export class IderServer {
  /** Bytes written to the device (messages and data). */
  bytesToDevice = 0;
  bytesFromDevice = 0;
  /** Image bytes served. */
  bytesServed = 0;
  commands = 0;
  readonly done: Promise<IderEnd>;
  #resolve!: (end: IderEnd) => void;
  #ended = false;
  #pending: Buffer = Buffer.alloc(0);
  #queue: Array<Extract<DeviceMessage, { type: typeof IDER.commandWritten }>> = [];
  #busy = false;
  #resetPending = false;
  #lastSentMs = Date.now();
  #lastHeardMs = Date.now();
  #lastCommandMs = Date.now();
  #timer: NodeJS.Timeout;
  readonly #drives: Record<DriveSelect, Drive>;
  readonly #media: Partial<Record<DriveSelect, IderMedium>>;
  readonly #pieceBytes: number;
  /**
   * Two image buffers a session reads into in turn, each reused once the socket has written what it
   * held: a session holds at most two pieces, and serving allocates nothing per piece (at hundreds
   * of MB/s, fresh buffers would keep the collector busy and with it the gateway's other requests).
   */
  readonly #slots: Array<{ buffer: Buffer | null; written: Promise<void> }> = [
    { buffer: null, written: Promise.resolve() },
    { buffer: null, written: Promise.resolve() },
  ];
  #nextSlot = 0;

  constructor(
    private readonly stream: Duplex,
    leftover: Buffer,
    media: { cd?: IderMedium; floppy?: IderMedium },
    private readonly encoder: IderEncoder,
    private readonly readBufferSize: number,
    private readonly options: IderServeOptions,
  ) {
    this.done = new Promise((resolve) => (this.#resolve = resolve));
    this.#media = { [DRIVE.cd]: media.cd, [DRIVE.floppy]: media.floppy };
    const drive = (kind: MediumKind, medium: IderMedium | undefined) => new Drive(kind, medium ? geometryOf(kind, medium.sizeBytes) : null);
    this.#drives = { [DRIVE.cd]: drive('cd', media.cd), [DRIVE.floppy]: drive('floppy', media.floppy) };
    const piece = Math.max(1, Math.floor(options.pieceBytes / readBufferSize)) * readBufferSize;
    this.#pieceBytes = piece;
    stream.on('data', (chunk: Buffer) => this.#received(chunk));
    stream.once('end', () => this.end('device'));
    stream.once('close', () => this.end('device'));
    stream.on('error', () => this.end('device'));
    const tick = Math.max(50, Math.min(options.heartbeatMs, options.silenceMs, options.idleMs) / 4);
    this.#timer = setInterval(() => this.#tick(), tick);
    this.#timer.unref();
    stream.resume();
    if (leftover.length) this.#received(leftover);
  }

  /** Ends the session: CLOSE_SESSION to the device, then the connection closes. Idempotent. */
  end(reason: IderEndReason, detail?: string): void {
    if (this.#ended) return;
    this.#ended = true;
    clearInterval(this.#timer);
    this.#queue = [];
    if (!this.stream.destroyed && this.stream.writable && reason !== 'device') {
      this.#send(this.encoder.bare(IDER.close));
      this.stream.end();
      setTimeout(() => this.stream.destroy(), CLOSE_GRACE_MS).unref();
    } else {
      this.stream.destroy();
    }
    this.#resolve(detail ? { reason, detail } : { reason });
  }

  get ended(): boolean {
    return this.#ended;
  }

  #tick(): void {
    const now = Date.now();
    if (now - this.#lastHeardMs >= this.options.silenceMs) return this.end('silent');
    if (!this.#busy && now - this.#lastCommandMs >= this.options.idleMs) return this.end('idle');
    if (now - this.#lastSentMs >= this.options.heartbeatMs) this.#send(this.encoder.bare(IDER.heartbeat));
  }

  #send(message: Buffer): boolean {
    this.bytesToDevice += message.length;
    this.#lastSentMs = Date.now();
    return this.stream.write(message);
  }

  #received(chunk: Buffer): void {
    if (this.#ended) return;
    this.bytesFromDevice += chunk.length;
    this.#lastHeardMs = Date.now();
    this.#pending = this.#pending.length ? Buffer.concat([this.#pending, chunk]) : chunk;
    try {
      for (;;) {
        const length = deviceMessageLength(this.#pending);
        if (length === 0) break;
        const message = decodeDeviceMessage(this.#pending.subarray(0, length));
        this.#pending = this.#pending.subarray(length);
        this.#handle(message);
        if (this.#ended) return;
      }
    } catch (error) {
      return this.end('protocol', error instanceof Error ? error.message : String(error));
    }
    if (this.#pending.length > MAX_PENDING) this.end('protocol', 'oversized IDE-R message');
  }

  #handle(message: DeviceMessage): void {
    switch (message.type) {
      case IDER.commandWritten:
        this.#lastCommandMs = Date.now();
        this.#queue.push(message);
        if (!this.#busy) void this.#pump();
        return;
      case IDER.ping:
        this.#send(this.encoder.bare(IDER.pong));
        return;
      case IDER.reset:
        this.#queue = [];
        for (const drive of Object.values(this.#drives)) drive.reset();
        if (this.#busy) this.#resetPending = true;
        else this.#send(this.encoder.bare(IDER.resetResponse));
        return;
      case IDER.closeReply:
        return this.end('device');
      case IDER.dataFromHost:
        // Write data the gateway never asked for (it refuses writes at the command): dropped.
        return;
      default:
        // Heartbeats, pongs, feature replies, error reports: the device is alive, nothing to answer.
        return;
    }
  }

  async #pump(): Promise<void> {
    this.#busy = true;
    try {
      for (let next = this.#queue.shift(); next && !this.#ended; next = this.#queue.shift()) {
        this.commands++;
        const drive = this.#drives[next.drive];
        await this.#answer(next.drive, next.dma, drive.answer(next.cdb));
        if (this.#resetPending) {
          this.#resetPending = false;
          this.#send(this.encoder.bare(IDER.resetResponse));
        }
      }
    } catch (error) {
      this.end('protocol', error instanceof Error ? error.message : String(error));
    } finally {
      this.#busy = false;
      this.#lastCommandMs = Date.now();
    }
  }

  async #answer(drive: DriveSelect, dma: boolean, answer: CommandAnswer): Promise<void> {
    if (answer.kind === 'status') return void this.#send(this.encoder.commandEnd(drive, answer.sense));
    if (answer.kind === 'data') return void (await this.#sendData(drive, dma, answer.data, true));
    const medium = this.#media[drive]!;
    const blockSize = geometryOf(medium.kind, medium.sizeBytes).blockSize;
    let position = answer.lba * blockSize;
    let remaining = answer.blocks * blockSize;
    while (remaining > 0) {
      if (this.#ended || this.#resetPending) return;
      const length = Math.min(remaining, this.#pieceBytes);
      const slot = this.#slots[this.#nextSlot]!;
      this.#nextSlot = 1 - this.#nextSlot;
      // The socket may still hold this slot's previous piece: reuse it only once that was written.
      await slot.written;
      const piece = (slot.buffer ??= Buffer.allocUnsafe(this.#pieceBytes)).subarray(0, length);
      let got: number;
      try {
        got = await readFully(medium, piece, position);
      } catch {
        return void this.#send(this.encoder.commandEnd(drive, MEDIUM_ERROR));
      }
      if (this.#ended || this.#resetPending) return;
      if (got < length) piece.fill(0, got); // the zero-padded end of the last block
      remaining -= length;
      position += length;
      this.bytesServed += length;
      slot.written = (await this.#sendData(drive, dma, piece, remaining === 0)).written;
    }
  }

  /**
   * `data` in DATA_TO_HOST messages of at most the device's read buffer; waits while the socket is
   * full. Resolves with `written`: a promise of the moment the socket has written the data (and no
   * longer holds `data`), or the session ended.
   */
  async #sendData(drive: DriveSelect, dma: boolean, data: Buffer, endsCommand: boolean): Promise<{ written: Promise<void> }> {
    const pieces = Math.max(1, Math.ceil(data.length / this.readBufferSize));
    const headers = Buffer.allocUnsafe(pieces * DATA_HEADER);
    this.stream.cork();
    let flowing = true;
    let written!: Promise<void>;
    for (let i = 0; i < pieces; i++) {
      const part = data.subarray(i * this.readBufferSize, (i + 1) * this.readBufferSize);
      const header = headers.subarray(i * DATA_HEADER, (i + 1) * DATA_HEADER);
      this.encoder.dataHeader(header, 0, drive, part.length, endsCommand && i === pieces - 1, dma);
      this.#send(header);
      this.bytesToDevice += part.length;
      if (i < pieces - 1) flowing = this.stream.write(part);
      // Written in order: the last part's callback says every part is out (or the stream failed).
      else written = new Promise((resolve) => (flowing = this.stream.write(part, () => resolve())));
    }
    this.stream.uncork();
    if (!flowing && !this.#ended) await drained(this.stream);
    return { written: Promise.race([written, this.done.then(() => undefined)]) };
  }
}

async function readFully(medium: IderMedium, into: Buffer, position: number): Promise<number> {
  let filled = 0;
  while (filled < into.length && position + filled < medium.sizeBytes) {
    const got = await medium.read(into, filled, into.length - filled, position + filled);
    if (got === 0) break;
    filled += got;
  }
  return filled;
}

function drained(stream: Duplex): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.once('drain', done);
    stream.once('close', done);
  });
}

/** Refuses a device whose session parameters the server cannot work with. */
export function checkOpenReply(readBufferSize: number): void {
  if (readBufferSize < 512) throw new AmtError('AMT_ERR_BAD_RESPONSE', `the device's IDE-R read buffer (${readBufferSize} bytes) is too small`);
}
