/**
 * The stream a CIRA connection's TLS handshake runs over: it passes the device's records to Node's
 * TLS socket and the TLS socket's records to the device, and watches them, so that right after the
 * handshake the record layer can be taken over from exactly the record where the handshake ended.
 * It learns the server random (ServerHello) and stops feeding the TLS socket after the device's
 * Finished; what the device sends after it is held for whoever takes over. If the connection is not
 * taken over (a protocol or suite the record layer does not implement), `passThrough()` makes it a
 * plain pipe again.
 */
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { ContentType, RecordReader } from './tls-records.js';

type Mode = 'handshake' | 'pass-through' | 'detached';

/** Most bytes a device may send after its Finished before the server's Finished (it should send none). */
const MAX_HELD_BYTES = 65_536;
const SERVER_HELLO = 2;
const RANDOM_OFFSET = 6;
const RANDOM_BYTES = 32;

export class HandshakeDuplex extends Duplex {
  serverRandom: Buffer | null = null;
  /** The device's ChangeCipherSpec and Finished were passed on; nothing after them was. */
  clientFinishedFed = false;
  /** Protected records the TLS socket wrote after its ChangeCipherSpec (1: its Finished). */
  serverProtectedRecords = 0;
  private mode: Mode = 'handshake';
  private readonly inbound = new RecordReader();
  private readonly outbound = new RecordReader();
  private clientCcsSeen = false;
  private serverCcsSeen = false;
  private held: Buffer[] = [];
  private heldBytes = 0;
  private readonly onRawData = (chunk: Buffer) => this.fromDevice(chunk);
  private readonly onRawEnd = () => this.push(null);
  private readonly onRawClose = () => this.destroy();

  constructor(
    readonly raw: Socket,
    /** Called when the watched handshake state changes, to check whether the take-over can happen. */
    private readonly changed: () => void,
  ) {
    super({ allowHalfOpen: false });
    raw.on('data', this.onRawData);
    raw.on('end', this.onRawEnd);
    raw.on('close', this.onRawClose);
  }

  /** Hands the raw socket over: this stream lets go of it; returns what the device sent after its Finished. */
  detach(): Buffer {
    this.mode = 'detached';
    this.raw.off('data', this.onRawData);
    this.raw.off('end', this.onRawEnd);
    this.raw.off('close', this.onRawClose);
    const rest = Buffer.concat(this.held);
    this.held = [];
    return rest;
  }

  /** Not taken over: everything held, and everything from now on, passes unwatched. */
  passThrough(): void {
    if (this.mode !== 'handshake') return;
    this.mode = 'pass-through';
    for (const chunk of this.held) this.toTls(chunk);
    this.held = [];
    const partial = this.inbound.takePending();
    if (partial.length) this.toTls(partial);
  }

  override _read(): void {
    if (this.mode !== 'detached') this.raw.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.mode === 'detached') return callback(new Error('the TLS socket wrote after the record layer was taken over'));
    if (this.mode === 'handshake') {
      try {
        this.watchOutbound(chunk);
      } catch (err) {
        return callback(err as Error);
      }
    }
    this.raw.write(chunk, (err) => callback(err ?? null));
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.mode !== 'detached') this.raw.end();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (this.mode !== 'detached') this.raw.destroy();
    callback(error);
  }

  private fromDevice(chunk: Buffer): void {
    if (this.mode === 'pass-through') return this.toTls(chunk);
    if (this.clientFinishedFed) return this.hold(chunk);
    let records;
    try {
      records = this.inbound.push(chunk);
    } catch (err) {
      return void this.destroy(err as Error);
    }
    // What follows the device's Finished is held before the Finished is passed on: passing it on can
    // end the handshake synchronously, and the take-over then collects what is held.
    const feed: Buffer[] = [];
    for (const record of records) {
      if (this.clientFinishedFed) {
        this.hold(Buffer.from(record.raw));
        continue;
      }
      feed.push(Buffer.from(record.raw));
      if (record.type === ContentType.changeCipherSpec) this.clientCcsSeen = true;
      else if (this.clientCcsSeen) this.clientFinishedFed = true;
    }
    if (this.clientFinishedFed) {
      const partial = this.inbound.takePending();
      if (partial.length) this.hold(partial);
    }
    for (const piece of feed) this.toTls(piece);
    if (this.clientFinishedFed) this.changed();
  }

  /** The server's ChangeCipherSpec and Finished went out to the device. */
  get serverFinishedSent(): boolean {
    return this.serverProtectedRecords > 0;
  }

  private watchOutbound(chunk: Buffer): void {
    const finishedBefore = this.serverFinishedSent;
    for (const record of this.outbound.push(chunk)) {
      if (!this.serverRandom && record.type === ContentType.handshake && record.body[0] === SERVER_HELLO && record.body.length >= RANDOM_OFFSET + RANDOM_BYTES) {
        this.serverRandom = Buffer.from(record.body.subarray(RANDOM_OFFSET, RANDOM_OFFSET + RANDOM_BYTES));
      }
      if (this.serverCcsSeen) this.serverProtectedRecords++;
      else if (record.type === ContentType.changeCipherSpec) this.serverCcsSeen = true;
    }
    if (!finishedBefore && this.serverFinishedSent) queueMicrotask(this.changed);
  }

  private toTls(chunk: Buffer): void {
    if (!this.push(chunk)) this.raw.pause();
  }

  private hold(chunk: Buffer): void {
    this.heldBytes += chunk.length;
    if (this.heldBytes > MAX_HELD_BYTES) return void this.destroy(new Error('the device sent too much before the handshake ended'));
    this.held.push(chunk);
  }
}
