/**
 * One APF channel as a Node Duplex stream. Writes leave as CHANNEL_DATA only within the window the
 * device gave (and wait for its WINDOW_ADJUST); the window the server gives is topped up as the
 * consumer reads, so a slow reader holds the device back instead of buffering without bound.
 */
import { Duplex } from 'node:stream';
import { buildChannelClose, buildChannelData, buildWindowAdjust } from '../apf/apf-build.js';
import { MAX_WINDOW } from '../apf/apf-protocol.js';
import { CiraChannelError } from '../errors.js';

/** What a channel needs from its tunnel. */
export interface ChannelLink {
  send(message: Buffer): void;
  /**
   * The channel is finished on both sides (or destroyed): forget its number. `closeAwaited`: we
   * sent CHANNEL_CLOSE and the device's answer (and maybe data in flight) is still to come.
   */
  release(localId: number, closeAwaited: boolean): void;
}

/** Largest CHANNEL_DATA payload the server sends. */
const MAX_DATA_PIECE = 32 * 1024;

export class ApfChannel extends Duplex {
  remoteId = -1;
  private remoteWindow = 0;
  /** Bytes the device may still send before our next WINDOW_ADJUST. */
  private localWindow: number;
  /** Bytes received and handed to the reader but not yet given back to the device. */
  private unadjusted = 0;
  private readerWaiting = true;
  private open = false;
  private closeSent = false;
  private closeReceived = false;
  private released = false;
  /** The device's own CHANNEL_CLOSE arrived (closeReceived is also set when we stop listening). */
  private deviceClosed = false;
  private held: { chunk: Buffer; callback: (err?: Error | null) => void } | null = null;

  constructor(
    private readonly link: ChannelLink,
    readonly localId: number,
    readonly port: number,
    private readonly windowBytes: number,
  ) {
    super({ allowHalfOpen: false });
    this.localWindow = windowBytes;
  }

  /** CHANNEL_OPEN_CONFIRMATION arrived: the device's channel number and window. */
  confirmed(remoteId: number, window: number): void {
    this.remoteId = remoteId;
    this.remoteWindow = window;
    this.open = true;
    this.flush();
  }

  /** CHANNEL_DATA for this channel; false when it overruns the window the server gave. */
  received(data: Buffer): boolean {
    if (data.length > this.localWindow) return false;
    if (this.closeReceived) return true;
    this.localWindow -= data.length;
    this.unadjusted += data.length;
    this.readerWaiting = this.push(data);
    this.adjust();
    return true;
  }

  windowAdjusted(bytes: number): void {
    this.remoteWindow = Math.min(MAX_WINDOW, this.remoteWindow + bytes);
    this.flush();
  }

  /** CHANNEL_CLOSE from the device: end of its data; answer with ours. */
  remoteClosed(): void {
    if (this.closeReceived) return;
    this.closeReceived = this.deviceClosed = true;
    this.sendClose();
    this.push(null);
    this.finish();
  }

  /** The tunnel went away: an error for a user still listening, a quiet close otherwise (never an unhandled 'error'). */
  tunnelClosed(): void {
    this.closeSent = this.closeReceived = true;
    if (this.listenerCount('error') > 0) this.destroy(new CiraChannelError('GW_ERR_CIRA_TUNNEL_CLOSED', 'the CIRA tunnel closed'));
    else this.destroy();
  }

  /** Bytes written but not yet sent for want of window. */
  get pendingBytes(): number {
    return this.held?.chunk.length ?? 0;
  }

  override _read(): void {
    this.readerWaiting = true;
    this.adjust();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    if (this.closeReceived) return callback(new CiraChannelError('GW_ERR_CIRA_TUNNEL_CLOSED', 'the device closed the channel'));
    this.held = { chunk, callback };
    if (this.open) this.flush();
  }

  /** What was written in one tick (e.g. a request's head and body, corked) leaves as one CHANNEL_DATA, one TLS record. */
  override _writev(chunks: Array<{ chunk: Buffer }>, callback: (err?: Error | null) => void): void {
    this._write(chunks.length === 1 ? chunks[0]!.chunk : Buffer.concat(chunks.map((c) => c.chunk)), 'binary', callback);
  }

  override _final(callback: (err?: Error | null) => void): void {
    this.sendClose();
    callback();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    if (this.held) this.held.callback(err ?? new CiraChannelError('GW_ERR_CIRA_TUNNEL_CLOSED', 'channel destroyed'));
    this.held = null;
    this.sendClose();
    this.closeReceived = true;
    this.finish();
    callback(err);
  }

  private flush(): void {
    const held = this.held;
    if (!held || !this.open) return;
    let chunk = held.chunk;
    while (chunk.length > 0 && this.remoteWindow > 0) {
      const piece = chunk.subarray(0, Math.min(chunk.length, this.remoteWindow, MAX_DATA_PIECE));
      this.link.send(buildChannelData(this.remoteId, piece));
      this.remoteWindow -= piece.length;
      chunk = chunk.subarray(piece.length);
    }
    if (chunk.length > 0) {
      held.chunk = chunk;
      return;
    }
    this.held = null;
    held.callback();
  }

  /** Gives the device back what the reader took, once half the window is used. */
  private adjust(): void {
    if (!this.readerWaiting || this.closeReceived || !this.open || this.unadjusted < this.windowBytes / 2) return;
    this.link.send(buildWindowAdjust(this.remoteId, this.unadjusted));
    this.localWindow += this.unadjusted;
    this.unadjusted = 0;
  }

  private sendClose(): void {
    if (this.closeSent) return;
    this.closeSent = true;
    if (this.open) this.link.send(buildChannelClose(this.remoteId));
  }

  private finish(): void {
    if (this.released || !this.closeReceived || !this.closeSent) return;
    this.released = true;
    this.link.release(this.localId, this.open && !this.deviceClosed);
  }
}
