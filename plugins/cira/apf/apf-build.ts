/** Builds the APF messages the server sends. Each returns one complete message. */
import { ApfType, FORWARDED_TCPIP, MAX_WINDOW } from './apf-protocol.js';

class Writer {
  private readonly parts: Buffer[] = [];
  u8(n: number): this {
    this.parts.push(Buffer.from([n]));
    return this;
  }
  u32(n: number): this {
    const b = Buffer.allocUnsafe(4);
    b.writeUInt32BE(n >>> 0, 0);
    this.parts.push(b);
    return this;
  }
  field(value: string | Buffer): this {
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
    this.u32(bytes.length);
    this.parts.push(bytes);
    return this;
  }
  raw(bytes: Buffer): this {
    this.parts.push(bytes);
    return this;
  }
  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

const message = (type: number) => new Writer().u8(type);

export const buildDisconnect = (reason: number) => message(ApfType.DISCONNECT).u32(reason).raw(Buffer.alloc(2)).done();
export const buildServiceAccept = (service: string) => message(ApfType.SERVICE_ACCEPT).field(service).done();
/** USERAUTH_FAILURE: the methods that may continue (`password`) and the partial-success byte. */
export const buildUserAuthFailure = () => message(ApfType.USERAUTH_FAILURE).field('password').u8(0).done();
export const buildUserAuthSuccess = () => message(ApfType.USERAUTH_SUCCESS).done();
/** REQUEST_SUCCESS; with the port for `tcpip-forward`, the type byte alone otherwise. */
export const buildRequestSuccess = (port?: number) => (port === undefined ? message(ApfType.REQUEST_SUCCESS) : message(ApfType.REQUEST_SUCCESS).u32(port)).done();
export const buildRequestFailure = () => message(ApfType.REQUEST_FAILURE).done();
export const buildKeepAliveReply = (cookie: number) => message(ApfType.KEEPALIVE_REPLY).u32(cookie).done();
export const buildKeepAliveOptionsRequest = (intervalSeconds: number, timeoutSeconds: number) =>
  message(ApfType.KEEPALIVE_OPTIONS_REQUEST).u32(intervalSeconds).u32(timeoutSeconds).done();

export interface ChannelOpenFields {
  sender: number;
  window: number;
  address: string;
  port: number;
  originator: string;
  originatorPort: number;
}

/** A server-initiated `forwarded-tcpip` CHANNEL_OPEN to a port the device forwarded. */
export const buildChannelOpen = (f: ChannelOpenFields) =>
  message(ApfType.CHANNEL_OPEN).field(FORWARDED_TCPIP).u32(f.sender).u32(f.window).u32(MAX_WINDOW).field(f.address).u32(f.port).field(f.originator).u32(f.originatorPort).done();
export const buildChannelOpenFailure = (recipient: number, reason: number) => message(ApfType.CHANNEL_OPEN_FAILURE).u32(recipient).u32(reason).u32(0).u32(0).done();
export const buildWindowAdjust = (recipient: number, bytes: number) => message(ApfType.CHANNEL_WINDOW_ADJUST).u32(recipient).u32(bytes).done();
export const buildChannelData = (recipient: number, data: Buffer) => message(ApfType.CHANNEL_DATA).u32(recipient).field(data).done();
export const buildChannelClose = (recipient: number) => message(ApfType.CHANNEL_CLOSE).u32(recipient).done();
