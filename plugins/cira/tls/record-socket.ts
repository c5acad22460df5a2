/**
 * A CIRA connection after its TLS handshake: the TCP socket with a TLS 1.2 AEAD record layer in
 * JavaScript instead of a Node TLSSocket. What it buys: an idle tunnel costs a TCP socket and two
 * keys (about 10 KiB) instead of Node's per-connection TLS state (50–65 KiB, BENCHMARKS.md "CIRA").
 * It offers the part of the socket interface a tunnel uses: data/error/close events, write, end,
 * destroy and pause/resume.
 */
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { AeadRecordCipher, RecordAuthError } from './aead-record-cipher.js';
import { ContentType, MAX_PLAINTEXT_BYTES, RecordReader, RecordTooLargeError, recordHeader, TLS12, type TlsRecord } from './tls-records.js';

const ALERT_WARNING = 1;
const ALERT_FATAL = 2;
const Alert = { closeNotify: 0, unexpectedMessage: 10, badRecordMac: 20, recordOverflow: 22, decodeError: 50, protocolVersion: 70, noRenegotiation: 100 } as const;

export class RecordSocket extends EventEmitter {
  private readonly reader = new RecordReader();
  /** Records received while paused, handled on resume. */
  private queued: TlsRecord[] = [];
  private paused = false;
  private closing = false;

  constructor(
    private readonly raw: Socket,
    private readonly reading: AeadRecordCipher,
    private readonly writing: AeadRecordCipher,
    /** What the device sent after its Finished, before the take-over. */
    early: Buffer,
  ) {
    super();
    raw.on('data', (chunk: Buffer) => this.received(chunk));
    raw.on('end', () => this.raw.end());
    raw.on('error', (err) => this.emit('error', err));
    raw.on('close', () => this.emit('close', false));
    // The handshake may have left the socket paused for backpressure.
    raw.resume();
    if (early.length) queueMicrotask(() => this.received(early));
  }

  get destroyed(): boolean {
    return this.raw.destroyed;
  }

  get writableLength(): number {
    return this.raw.writableLength;
  }

  write(data: Buffer): boolean {
    if (this.closing || this.raw.destroyed) return false;
    return this.raw.write(this.protect(ContentType.applicationData, data));
  }

  /** Sends `data` if given, then close_notify, and ends the TCP stream. */
  end(data?: Buffer): void {
    if (this.closing || this.raw.destroyed) return;
    const parts = data?.length ? [this.protect(ContentType.applicationData, data)] : [];
    parts.push(this.protect(ContentType.alert, Buffer.from([ALERT_WARNING, Alert.closeNotify])));
    this.closing = true;
    this.raw.end(Buffer.concat(parts));
  }

  destroy(): void {
    this.raw.destroy();
  }

  pause(): void {
    this.paused = true;
    this.raw.pause();
  }

  resume(): void {
    this.paused = false;
    while (!this.paused && this.queued.length && !this.raw.destroyed) this.handle(this.queued.shift()!);
    if (!this.paused) this.raw.resume();
  }

  private protect(type: number, data: Buffer): Buffer {
    const records: Buffer[] = [];
    for (let offset = 0; offset < data.length; offset += MAX_PLAINTEXT_BYTES) {
      const body = this.writing.seal(type, data.subarray(offset, offset + MAX_PLAINTEXT_BYTES));
      records.push(recordHeader(type, TLS12, body.length), body);
    }
    return Buffer.concat(records);
  }

  private received(chunk: Buffer): void {
    let records: TlsRecord[];
    try {
      records = this.reader.push(chunk);
    } catch (err) {
      if (err instanceof RecordTooLargeError) return this.fail(Alert.recordOverflow, err);
      throw err;
    }
    for (const record of records) {
      if (this.paused || this.queued.length) this.queued.push({ ...record, body: Buffer.from(record.body) });
      else this.handle(record);
      if (this.raw.destroyed) return;
    }
  }

  private handle(record: TlsRecord): void {
    if (record.version !== TLS12) return this.fail(Alert.protocolVersion, new Error(`TLS record of version 0x${record.version.toString(16)} on a TLS 1.2 connection`));
    if (record.type !== ContentType.applicationData && record.type !== ContentType.alert) {
      // A handshake record now is a renegotiation, which CIRA never needs; anything else is out of place.
      const alert = record.type === ContentType.handshake ? Alert.noRenegotiation : Alert.unexpectedMessage;
      return this.fail(alert, new Error(`unexpected TLS record of type ${record.type} after the handshake`));
    }
    let plaintext: Buffer;
    try {
      plaintext = this.reading.open(record.type, record.body);
    } catch (err) {
      if (err instanceof RecordAuthError) return this.fail(Alert.badRecordMac, err);
      throw err;
    }
    if (plaintext.length > MAX_PLAINTEXT_BYTES) return this.fail(Alert.recordOverflow, new Error('TLS record plaintext over 2^14 bytes'));
    if (record.type === ContentType.alert) return this.alert(plaintext);
    if (plaintext.length) this.emit('data', plaintext);
  }

  private alert(plaintext: Buffer): void {
    if (plaintext.length !== 2) return this.fail(Alert.decodeError, new Error('malformed TLS alert'));
    if (plaintext[1] === Alert.closeNotify) {
      if (!this.closing) this.end();
      return;
    }
    if (plaintext[0] === ALERT_FATAL) return void this.raw.destroy();
    // Warning alerts other than close_notify (e.g. no_renegotiation) change nothing.
  }

  private fail(alert: number, error: Error): void {
    if (!this.closing && !this.raw.destroyed) {
      this.closing = true;
      try {
        this.raw.end(this.protect(ContentType.alert, Buffer.from([ALERT_FATAL, alert])));
      } catch {
        // The alert is a courtesy; the socket closes either way.
      }
    }
    this.emit('error', error);
    setTimeout(() => this.raw.destroy(), 1000).unref();
  }
}
