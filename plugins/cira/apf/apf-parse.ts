/**
 * Parses one APF message from the front of a buffer. APF has no outer length: each message's size
 * follows from its type and its length-prefixed strings, so the parser tells "need more bytes"
 * apart from "malformed" and refuses a declared length above its bound before the bytes arrive.
 */
import { uuidFromSmbiosBytes } from '../../../workers/amt/reads/uuid.js';
import { ApfType, CANCEL_TCPIP_FORWARD, TCPIP_FORWARD, UDP_SEND_TO } from './apf-protocol.js';

export type ApfMessage =
  | { type: typeof ApfType.DISCONNECT; reason: number }
  | { type: typeof ApfType.SERVICE_REQUEST; service: string }
  | { type: typeof ApfType.USERAUTH_REQUEST; username: string; service: string; method: string; password: string | null }
  | { type: typeof ApfType.GLOBAL_REQUEST; name: string; wantReply: boolean; address: string | null; port: number | null }
  | {
      type: typeof ApfType.CHANNEL_OPEN;
      channelType: string;
      sender: number;
      window: number;
      address: string;
      port: number;
      originator: string;
      originatorPort: number;
    }
  | { type: typeof ApfType.CHANNEL_OPEN_CONFIRMATION; recipient: number; sender: number; window: number }
  | { type: typeof ApfType.CHANNEL_OPEN_FAILURE; recipient: number; reason: number }
  | { type: typeof ApfType.CHANNEL_WINDOW_ADJUST; recipient: number; bytes: number }
  | { type: typeof ApfType.CHANNEL_DATA; recipient: number; data: Buffer }
  | { type: typeof ApfType.CHANNEL_CLOSE; recipient: number }
  | { type: typeof ApfType.PROTOCOLVERSION; major: number; minor: number; trigger: number; uuid: string }
  | { type: typeof ApfType.KEEPALIVE_REQUEST | typeof ApfType.KEEPALIVE_REPLY; cookie: number }
  | { type: typeof ApfType.KEEPALIVE_OPTIONS_REQUEST | typeof ApfType.KEEPALIVE_OPTIONS_REPLY; interval: number; timeout: number };

export type ParseResult =
  | { kind: 'message'; message: ApfMessage; bytes: number }
  /** `atLeast`: the message is known to need at least this many bytes (so a reader can wait for them). */
  | { kind: 'need-more'; atLeast: number }
  | { kind: 'malformed'; reason: string };

export interface ParseLimits {
  /** Largest message accepted, type byte included (CHANNEL_DATA payloads are bounded by it). */
  maxMessageBytes: number;
}

/** Longest name, address, user name or password accepted in a string field. */
const MAX_TEXT_BYTES = 1024;

class NeedMore {
  constructor(readonly end: number) {}
}
class Malformed {
  constructor(readonly reason: string) {}
}

class Cursor {
  constructor(
    private readonly buf: Buffer,
    public pos: number,
    /** Where the message must end at the latest (exclusive). */
    private readonly end: number,
  ) {}
  private need(n: number): void {
    if (this.pos + n > this.end) throw new Malformed('message longer than the limit');
    if (this.pos + n > this.buf.length) throw new NeedMore(this.pos + n);
  }
  u8(): number {
    this.need(1);
    return this.buf[this.pos++]!;
  }
  u32(): number {
    this.need(4);
    const value = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return value;
  }
  bytes(n: number): Buffer {
    this.need(n);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  /** A length-prefixed field of at most `max` bytes. */
  field(max: number): Buffer {
    const length = this.u32();
    if (length > max) throw new Malformed(`field of ${length} bytes exceeds ${max}`);
    return this.bytes(length);
  }
  text(): string {
    return this.field(MAX_TEXT_BYTES).toString('utf8');
  }
}

function parseBody(type: number, c: Cursor, limits: ParseLimits): ApfMessage {
  switch (type) {
    case ApfType.DISCONNECT: {
      const reason = c.u32();
      c.bytes(2);
      return { type, reason };
    }
    case ApfType.SERVICE_REQUEST:
      return { type, service: c.text() };
    case ApfType.USERAUTH_REQUEST: {
      const username = c.text();
      const service = c.text();
      const method = c.text();
      if (method !== 'password') return { type, username, service, method, password: null };
      c.u8();
      return { type, username, service, method, password: c.text() };
    }
    case ApfType.GLOBAL_REQUEST: {
      const name = c.text();
      const wantReply = c.u8() !== 0;
      if (name === TCPIP_FORWARD || name === CANCEL_TCPIP_FORWARD) return { type, name, wantReply, address: c.text(), port: c.u32() };
      if (name === UDP_SEND_TO) {
        const address = c.text();
        const port = c.u32();
        c.text();
        c.u32();
        c.field(limits.maxMessageBytes);
        return { type, name, wantReply, address, port };
      }
      return { type, name, wantReply, address: null, port: null };
    }
    case ApfType.CHANNEL_OPEN: {
      const channelType = c.text();
      const sender = c.u32();
      const window = c.u32();
      c.u32();
      return { type, channelType, sender, window, address: c.text(), port: c.u32(), originator: c.text(), originatorPort: c.u32() };
    }
    case ApfType.CHANNEL_OPEN_CONFIRMATION: {
      const recipient = c.u32();
      const sender = c.u32();
      const window = c.u32();
      c.u32();
      return { type, recipient, sender, window };
    }
    case ApfType.CHANNEL_OPEN_FAILURE: {
      const recipient = c.u32();
      const reason = c.u32();
      c.bytes(8);
      return { type, recipient, reason };
    }
    case ApfType.CHANNEL_WINDOW_ADJUST:
      return { type, recipient: c.u32(), bytes: c.u32() };
    case ApfType.CHANNEL_DATA:
      return { type, recipient: c.u32(), data: c.field(limits.maxMessageBytes) };
    case ApfType.CHANNEL_CLOSE:
      return { type, recipient: c.u32() };
    case ApfType.PROTOCOLVERSION: {
      const major = c.u32();
      const minor = c.u32();
      const trigger = c.u32();
      const uuid = uuidFromSmbiosBytes(Buffer.from(c.bytes(16)))!;
      c.bytes(64);
      return { type, major, minor, trigger, uuid };
    }
    case ApfType.KEEPALIVE_REQUEST:
    case ApfType.KEEPALIVE_REPLY:
      return { type, cookie: c.u32() };
    case ApfType.KEEPALIVE_OPTIONS_REQUEST:
    case ApfType.KEEPALIVE_OPTIONS_REPLY:
      return { type, interval: c.u32(), timeout: c.u32() };
    default:
      throw new Malformed(`unknown message type ${type}`);
  }
}

/** Parses the message starting at `offset` of `buf`. */
export function parseApfMessage(buf: Buffer, offset: number, limits: ParseLimits): ParseResult {
  if (offset >= buf.length) return { kind: 'need-more', atLeast: 1 };
  const cursor = new Cursor(buf, offset + 1, offset + limits.maxMessageBytes);
  try {
    const message = parseBody(buf[offset]!, cursor, limits);
    return { kind: 'message', message, bytes: cursor.pos - offset };
  } catch (err) {
    if (err instanceof NeedMore) return { kind: 'need-more', atLeast: err.end - offset };
    if (err instanceof Malformed) return { kind: 'malformed', reason: err.reason };
    throw err;
  }
}
