/**
 * APF (AMT Port Forwarding) as a device speaks it, written from shared/AMT-NOTES.md "CIRA: APF over TLS"
 * independently of the gateway's own codec, so that the simulator is a second implementation the
 * server is tested against.
 */

export const APF = {
  DISCONNECT: 1,
  SERVICE_REQUEST: 5,
  SERVICE_ACCEPT: 6,
  USERAUTH_REQUEST: 50,
  USERAUTH_FAILURE: 51,
  USERAUTH_SUCCESS: 52,
  GLOBAL_REQUEST: 80,
  REQUEST_SUCCESS: 81,
  REQUEST_FAILURE: 82,
  CHANNEL_OPEN: 90,
  CHANNEL_OPEN_CONFIRMATION: 91,
  CHANNEL_OPEN_FAILURE: 92,
  CHANNEL_WINDOW_ADJUST: 93,
  CHANNEL_DATA: 94,
  CHANNEL_CLOSE: 97,
  PROTOCOLVERSION: 192,
  KEEPALIVE_REQUEST: 208,
  KEEPALIVE_REPLY: 209,
  KEEPALIVE_OPTIONS_REQUEST: 210,
  KEEPALIVE_OPTIONS_REPLY: 211,
} as const;

/** What the device receives from a server. */
export type ServerMessage =
  | { type: 'disconnect'; reason: number }
  | { type: 'service-accept'; service: string }
  | { type: 'userauth-failure'; methods: string }
  | { type: 'userauth-success' }
  | { type: 'request-success'; port: number | null }
  | { type: 'request-failure' }
  | { type: 'global-request'; name: string; wantReply: boolean }
  | { type: 'channel-open'; kind: string; sender: number; window: number; address: string; port: number; originator: string; originatorPort: number }
  | { type: 'channel-open-confirmation'; recipient: number; sender: number; window: number }
  | { type: 'channel-open-failure'; recipient: number; reason: number }
  | { type: 'window-adjust'; recipient: number; bytes: number }
  | { type: 'channel-data'; recipient: number; data: Buffer }
  | { type: 'channel-close'; recipient: number }
  | { type: 'keepalive-request'; cookie: number }
  | { type: 'keepalive-reply'; cookie: number }
  | { type: 'keepalive-options-request'; interval: number; timeout: number };

export class ApfProtocolError extends Error {}

// ---------------------------------------------------------------- encoding

function u32(n: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(n >>> 0, 0);
  return b;
}

function str(s: string | Buffer): Buffer {
  const bytes = typeof s === 'string' ? Buffer.from(s, 'utf8') : s;
  return Buffer.concat([u32(bytes.length), bytes]);
}

function msg(type: number, ...parts: Buffer[]): Buffer {
  return Buffer.concat([Buffer.of(type), ...parts]);
}

/** The UUID's 16 bytes as PlatformGUID orders them: the first three fields little-endian. */
export function uuidToWire(uuid: string): Buffer {
  const b = Buffer.from(uuid.replace(/-/g, ''), 'hex');
  if (b.length !== 16) throw new Error(`not a UUID: ${uuid}`);
  return Buffer.concat([Buffer.from(b.subarray(0, 4)).reverse(), Buffer.from(b.subarray(4, 6)).reverse(), Buffer.from(b.subarray(6, 8)).reverse(), b.subarray(8)]);
}

export const encode = {
  protocolVersion: (uuid: string, trigger = 1): Buffer => msg(APF.PROTOCOLVERSION, u32(1), u32(0), u32(trigger), uuidToWire(uuid), Buffer.alloc(64)),
  serviceRequest: (service: string): Buffer => msg(APF.SERVICE_REQUEST, str(service)),
  userauthPassword: (user: string, password: string): Buffer =>
    msg(APF.USERAUTH_REQUEST, str(user), str('pfwd@amt.intel.com'), str('password'), Buffer.of(0), str(password)),
  tcpipForward: (port: number, address = ''): Buffer => msg(APF.GLOBAL_REQUEST, str('tcpip-forward'), Buffer.of(1), str(address), u32(port)),
  keepAliveRequest: (cookie: number): Buffer => msg(APF.KEEPALIVE_REQUEST, u32(cookie)),
  keepAliveReply: (cookie: number): Buffer => msg(APF.KEEPALIVE_REPLY, u32(cookie)),
  keepAliveOptionsReply: (interval: number, timeout: number): Buffer => msg(APF.KEEPALIVE_OPTIONS_REPLY, u32(interval), u32(timeout)),
  channelOpenConfirmation: (recipient: number, sender: number, window: number): Buffer =>
    msg(APF.CHANNEL_OPEN_CONFIRMATION, u32(recipient), u32(sender), u32(window), u32(0xffffffff)),
  channelOpenFailure: (recipient: number, reason: number): Buffer => msg(APF.CHANNEL_OPEN_FAILURE, u32(recipient), u32(reason), u32(0), u32(0)),
  windowAdjust: (recipient: number, bytes: number): Buffer => msg(APF.CHANNEL_WINDOW_ADJUST, u32(recipient), u32(bytes)),
  /** One copy of the data (a KVM screen goes through here in 16 KiB pieces). */
  channelData: (recipient: number, data: Buffer): Buffer => {
    const head = Buffer.allocUnsafe(9);
    head[0] = APF.CHANNEL_DATA;
    head.writeUInt32BE(recipient >>> 0, 1);
    head.writeUInt32BE(data.length, 5);
    return Buffer.concat([head, data]);
  },
  channelClose: (recipient: number): Buffer => msg(APF.CHANNEL_CLOSE, u32(recipient)),
  disconnect: (reason: number): Buffer => Buffer.concat([Buffer.of(APF.DISCONNECT), u32(reason), Buffer.alloc(2)]),
};

// ---------------------------------------------------------------- decoding

/** Reads fields from one buffer; `null` from any read means the message is not complete yet. */
class Reader {
  offset = 1;
  constructor(private readonly buf: Buffer, private readonly maxString: number) {}

  u8(): number | null {
    if (this.offset + 1 > this.buf.length) return null;
    return this.buf[this.offset++]!;
  }

  u32(): number | null {
    if (this.offset + 4 > this.buf.length) return null;
    const v = this.buf.readUInt32BE(this.offset);
    this.offset += 4;
    return v;
  }

  bytes(): Buffer | null {
    const len = this.u32();
    if (len === null) return null;
    if (len > this.maxString) throw new ApfProtocolError(`string of ${len} bytes exceeds ${this.maxString}`);
    if (this.offset + len > this.buf.length) return null;
    const out = this.buf.subarray(this.offset, this.offset + len);
    this.offset += len;
    return out;
  }

  text(): string | null {
    return this.bytes()?.toString('utf8') ?? null;
  }

  skip(n: number): boolean {
    if (this.offset + n > this.buf.length) return false;
    this.offset += n;
    return true;
  }
}

type Parsed = { message: ServerMessage; length: number } | null;

function parseOne(buf: Buffer, maxString: number): Parsed {
  const r = new Reader(buf, maxString);
  const done = (message: ServerMessage): Parsed => ({ message, length: r.offset });
  switch (buf[0]) {
    case APF.DISCONNECT: {
      const reason = r.u32();
      return reason === null || !r.skip(2) ? null : done({ type: 'disconnect', reason });
    }
    case APF.SERVICE_ACCEPT: {
      const service = r.text();
      return service === null ? null : done({ type: 'service-accept', service });
    }
    case APF.USERAUTH_FAILURE: {
      const methods = r.text();
      // One reserved byte per Intel's header; tolerate a second one as Open AMT and MeshCentral send.
      if (methods === null || r.u8() === null) return null;
      if (buf[r.offset] === 0) r.skip(1);
      return done({ type: 'userauth-failure', methods });
    }
    case APF.USERAUTH_SUCCESS:
      return done({ type: 'userauth-success' });
    case APF.REQUEST_SUCCESS: {
      // Only tcpip-forward is ever sent by the device, whose success carries the port.
      const port = r.u32();
      return port === null ? null : done({ type: 'request-success', port });
    }
    case APF.REQUEST_FAILURE:
      return done({ type: 'request-failure' });
    case APF.GLOBAL_REQUEST: {
      const name = r.text();
      const want = name === null ? null : r.u8();
      return name === null || want === null ? null : done({ type: 'global-request', name, wantReply: want !== 0 });
    }
    case APF.CHANNEL_OPEN: {
      const kind = r.text();
      if (kind === null) return null;
      const sender = r.u32();
      const window = r.u32();
      const reserved = r.u32();
      const address = r.text();
      const port = r.u32();
      const originator = r.text();
      const originatorPort = r.u32();
      if (sender === null || window === null || reserved === null || address === null || port === null || originator === null || originatorPort === null) return null;
      return done({ type: 'channel-open', kind, sender, window, address, port, originator, originatorPort });
    }
    case APF.CHANNEL_OPEN_CONFIRMATION: {
      const [recipient, sender, window, reserved] = [r.u32(), r.u32(), r.u32(), r.u32()];
      return reserved === null ? null : done({ type: 'channel-open-confirmation', recipient: recipient!, sender: sender!, window: window! });
    }
    case APF.CHANNEL_OPEN_FAILURE: {
      const [recipient, reason, a, b] = [r.u32(), r.u32(), r.u32(), r.u32()];
      return a === null || b === null ? null : done({ type: 'channel-open-failure', recipient: recipient!, reason: reason! });
    }
    case APF.CHANNEL_WINDOW_ADJUST: {
      const [recipient, bytes] = [r.u32(), r.u32()];
      return bytes === null ? null : done({ type: 'window-adjust', recipient: recipient!, bytes });
    }
    case APF.CHANNEL_DATA: {
      const recipient = r.u32();
      const data = recipient === null ? null : r.bytes();
      return data === null ? null : done({ type: 'channel-data', recipient: recipient!, data: Buffer.from(data) });
    }
    case APF.CHANNEL_CLOSE: {
      const recipient = r.u32();
      return recipient === null ? null : done({ type: 'channel-close', recipient });
    }
    case APF.KEEPALIVE_REQUEST:
    case APF.KEEPALIVE_REPLY: {
      const cookie = r.u32();
      if (cookie === null) return null;
      return done({ type: buf[0] === APF.KEEPALIVE_REQUEST ? 'keepalive-request' : 'keepalive-reply', cookie });
    }
    case APF.KEEPALIVE_OPTIONS_REQUEST: {
      const [interval, timeout] = [r.u32(), r.u32()];
      return timeout === null ? null : done({ type: 'keepalive-options-request', interval: interval!, timeout });
    }
    default:
      throw new ApfProtocolError(`unexpected message type ${buf[0]}`);
  }
}

/**
 * Splits a byte stream from the server into messages: bytes may arrive split across or packed into
 * reads. Throws `ApfProtocolError` on a message the device cannot accept.
 */
export class ApfReader {
  #pending: Buffer = Buffer.alloc(0);
  constructor(private readonly maxString = 1024 * 1024) {}

  push(chunk: Buffer): ServerMessage[] {
    let buf = this.#pending.length ? Buffer.concat([this.#pending, chunk]) : chunk;
    const out: ServerMessage[] = [];
    while (buf.length > 0) {
      const parsed = parseOne(buf, this.maxString);
      if (!parsed) break;
      out.push(parsed.message);
      buf = buf.subarray(parsed.length);
    }
    this.#pending = buf.length ? Buffer.from(buf) : Buffer.alloc(0);
    return out;
  }
}
