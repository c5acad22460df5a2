/**
 * The channels of one tunnel: numbering, opens waiting for the device's confirmation (bounded in
 * time), and routing of the device's channel messages to their stream. Created on a tunnel's first
 * channel, so that a tunnel without channels holds none of this.
 */
import * as build from '../apf/apf-build.js';
import type { ApfMessage } from '../apf/apf-parse.js';
import type { ApfType } from '../apf/apf-protocol.js';
import type { OpenChannelOptions } from '../api.js';
import { CiraChannelError } from '../errors.js';
import { ApfChannel } from './apf-channel.js';

type Message<T extends number> = Extract<ApfMessage, { type: T }>;

interface PendingOpen {
  channel: ApfChannel;
  resolve: (channel: ApfChannel) => void;
  reject: (err: Error) => void;
  cleanup: () => void;
}

export interface ChannelTableOptions {
  send(message: Buffer): void;
  /** A message for a channel number the table does not know (dropped). */
  unknown(detail: string): void;
  /** CHANNEL_DATA beyond the window we gave: the tunnel must end. */
  overrun(detail: string): void;
  windowBytes: number;
  openTimeoutMs: number;
}

const MAX_CLOSING = 64;
const tunnelClosed = () => new CiraChannelError('GW_ERR_CIRA_TUNNEL_CLOSED', 'the CIRA tunnel closed');

export class ChannelTable {
  private readonly channels = new Map<number, ApfChannel>();
  private readonly opening = new Map<number, PendingOpen>();
  /** Channels we closed whose CHANNEL_CLOSE answer is still due: their late messages are expected, not strays. */
  private readonly closing = new Set<number>();
  private nextId = 1;

  constructor(private readonly options: ChannelTableOptions) {}

  get size(): number {
    return this.channels.size;
  }

  /** Sends a `forwarded-tcpip` CHANNEL_OPEN to `port`; resolves on the device's confirmation. */
  open(port: number, options: OpenChannelOptions): Promise<ApfChannel> {
    if (options.signal?.aborted) return Promise.reject(new CiraChannelError('GW_ERR_CIRA_ABORTED', 'aborted'));
    const localId = this.allocateId();
    const windowBytes = options.windowBytes ?? this.options.windowBytes;
    const channel = new ApfChannel({ send: (m) => this.options.send(m), release: (id, closeAwaited) => this.release(id, closeAwaited) }, localId, port, windowBytes);
    this.channels.set(localId, channel);
    return new Promise<ApfChannel>((resolve, reject) => {
      const fail = (err: Error) => {
        cleanup();
        channel.destroy();
        reject(err);
      };
      const timer = setTimeout(
        () => fail(new CiraChannelError('GW_ERR_CIRA_OPEN_TIMEOUT', `the device did not confirm the channel to port ${port} in time`)),
        options.timeoutMs ?? this.options.openTimeoutMs,
      );
      const onAbort = () => fail(new CiraChannelError('GW_ERR_CIRA_ABORTED', 'aborted'));
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const cleanup = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.opening.delete(localId);
      };
      this.opening.set(localId, { channel, resolve, reject, cleanup });
      this.options.send(build.buildChannelOpen({ sender: localId, window: windowBytes, address: '127.0.0.1', port, originator: '127.0.0.1', originatorPort: 0 }));
    });
  }

  confirmed(message: Message<typeof ApfType.CHANNEL_OPEN_CONFIRMATION>): void {
    const open = this.opening.get(message.recipient);
    if (!open) {
      // A late confirmation of a channel we gave up on: close it on the device too.
      this.options.unknown(`confirmation for channel ${message.recipient}`);
      return this.options.send(build.buildChannelClose(message.sender));
    }
    open.cleanup();
    open.channel.confirmed(message.sender, message.window);
    open.resolve(open.channel);
  }

  refused(message: Message<typeof ApfType.CHANNEL_OPEN_FAILURE>): void {
    const open = this.opening.get(message.recipient);
    if (!open) return this.options.unknown(`open failure for channel ${message.recipient}`);
    open.cleanup();
    open.channel.destroy();
    open.reject(new CiraChannelError('GW_ERR_CIRA_OPEN_FAILED', `the device refused the channel to port ${open.channel.port} (reason ${message.reason})`, message.reason));
  }

  windowAdjusted(message: Message<typeof ApfType.CHANNEL_WINDOW_ADJUST>): void {
    this.confirmedChannel(message.recipient, 'window adjust')?.windowAdjusted(message.bytes);
  }

  data(message: Message<typeof ApfType.CHANNEL_DATA>): void {
    const channel = this.confirmedChannel(message.recipient, 'data');
    if (channel && !channel.received(message.data)) this.options.overrun(`${message.data.length} bytes on channel ${message.recipient}`);
  }

  closed(message: Message<typeof ApfType.CHANNEL_CLOSE>): void {
    if (this.closing.delete(message.recipient)) return;
    this.confirmedChannel(message.recipient, 'close')?.remoteClosed();
  }

  /** The tunnel ended: waiting opens fail, open channels are destroyed. */
  closeAll(): void {
    for (const open of [...this.opening.values()]) {
      open.cleanup();
      open.reject(tunnelClosed());
    }
    for (const channel of [...this.channels.values()]) channel.tunnelClosed();
    this.channels.clear();
  }

  /** Channel messages need a confirmed channel; others are noted and dropped (they race with our close). */
  private confirmedChannel(localId: number, what: string): ApfChannel | undefined {
    const channel = this.channels.get(localId);
    if (channel && channel.remoteId >= 0) return channel;
    if (!this.closing.has(localId)) this.options.unknown(`${what} for channel ${localId}`);
    return undefined;
  }

  private release(localId: number, closeAwaited: boolean): void {
    this.channels.delete(localId);
    if (!closeAwaited) return;
    this.closing.add(localId);
    // A device that never answers must not grow the set without bound.
    if (this.closing.size > MAX_CLOSING) this.closing.delete(this.closing.values().next().value!);
  }

  private allocateId(): number {
    while (this.channels.has(this.nextId) || this.nextId === 0) this.nextId = (this.nextId + 1) >>> 0;
    const id = this.nextId;
    this.nextId = (id + 1) >>> 0;
    return id;
  }
}
