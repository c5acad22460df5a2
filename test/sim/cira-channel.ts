/**
 * One APF channel as the device sees it, as a Duplex the device's HTTP server reads and writes. Sends
 * only within the window the server gave, in pieces of uneven sizes, and tops up the window it gives
 * once half of it is used.
 */
import { Duplex } from 'node:stream';
import { encode } from './cira-apf.js';

/** Sizes of consecutive CHANNEL_DATA payloads by default, so message boundaries fall at odd places. */
export const ODD_PIECES: readonly number[] = [37, 1, 509, 3, 1021, 89, 2, 733, 4093, 17];

export interface ChannelCounters {
  windowOverruns: number;
  dataMessagesSent: number;
  dataMessagesReceived: number;
  /** CHANNEL_WINDOW_ADJUSTs from the server (each one a round trip the device's sending waited on, once its window ran out). */
  windowAdjustsReceived: number;
}

export class CiraChannel extends Duplex {
  /** Bytes the server may still send us before we adjust. */
  #receiveRemaining: number;
  #receiveConsumed = 0;
  /** Bytes we may still send. */
  #sendWindow: number;
  #queue: { data: Buffer; done: (error?: Error | null) => void }[] = [];
  #piece = 0;
  #closeSent = false;
  #closeReceived = false;

  constructor(
    readonly localId: number,
    readonly remoteId: number,
    sendWindow: number,
    private readonly receiveWindow: number,
    private readonly send: (message: Buffer) => void,
    private readonly counters: ChannelCounters,
    private readonly onGone: (channel: CiraChannel) => void,
    private readonly pieces: readonly number[] = ODD_PIECES,
  ) {
    super({ allowHalfOpen: false });
    this.#sendWindow = sendWindow;
    this.#receiveRemaining = receiveWindow;
  }

  /** CHANNEL_DATA from the server. Returns false when it overran the window (the channel is then closed). */
  receive(data: Buffer): boolean {
    this.counters.dataMessagesReceived++;
    if (data.length > this.#receiveRemaining) {
      this.counters.windowOverruns++;
      this.closeFromDevice();
      return false;
    }
    this.#receiveRemaining -= data.length;
    this.#receiveConsumed += data.length;
    if (this.#receiveConsumed >= this.receiveWindow / 2) {
      this.send(encode.windowAdjust(this.remoteId, this.#receiveConsumed));
      this.#receiveRemaining += this.#receiveConsumed;
      this.#receiveConsumed = 0;
    }
    this.push(data);
    return true;
  }

  /** WINDOW_ADJUST from the server. */
  adjust(bytes: number): void {
    this.counters.windowAdjustsReceived++;
    this.#sendWindow += bytes;
    this.#flush();
  }

  /** CHANNEL_CLOSE from the server. */
  closedByServer(): void {
    this.#closeReceived = true;
    this.closeFromDevice();
  }

  /** Ends the channel from the device's side (once), answering or starting the close handshake. */
  closeFromDevice(): void {
    if (!this.#closeSent) {
      this.#closeSent = true;
      this.send(encode.channelClose(this.remoteId));
    }
    for (const item of this.#queue.splice(0)) item.done();
    this.push(null);
    if (!this.destroyed) this.destroy();
    this.onGone(this);
  }

  get closeReceived(): boolean {
    return this.#closeReceived;
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (this.#closeSent) return done();
    this.#queue.push({ data: chunk, done });
    this.#flush();
  }

  override _final(done: (error?: Error | null) => void): void {
    this.closeFromDevice();
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    if (!this.#closeSent) {
      this.#closeSent = true;
      this.send(encode.channelClose(this.remoteId));
      this.onGone(this);
    }
    done(error);
  }

  #flush(): void {
    while (this.#queue.length > 0 && this.#sendWindow > 0 && !this.#closeSent) {
      const head = this.#queue[0]!;
      const size = Math.min(head.data.length, this.#sendWindow, this.pieces[this.#piece++ % this.pieces.length]!);
      this.send(encode.channelData(this.remoteId, head.data.subarray(0, size)));
      this.counters.dataMessagesSent++;
      this.#sendWindow -= size;
      head.data = head.data.subarray(size);
      if (head.data.length === 0) {
        this.#queue.shift();
        head.done();
      }
    }
  }
}
