/** The RMCP presence responder of a simulated device (UDP, normally port 623). */
import type { DeviceState } from './device-state.js';

const ASF_IANA = 4542;
const INTEL_IANA = 343;

/** The 28-byte pong a device sends for a presence ping (RMCP header echoed, tag echoed). */
export function encodePong(state: DeviceState, ping: Buffer): Buffer {
  const tag = ping[9] ?? 0;
  const { config } = state;
  const [major = 0, minor = 0] = config.firmwareVersion.split('.').map((v) => Number(v));
  const b = Buffer.alloc(28);
  ping.copy(b, 0, 0, 4);
  b.writeUInt32BE(ASF_IANA, 4);
  b.writeUInt8(0x40, 8);
  b.writeUInt8(tag & 0xff, 9);
  b.writeUInt8(0x00, 10);
  b.writeUInt8(0x10, 11);
  b.writeUInt32BE(INTEL_IANA, 12);
  const port = config.provisioningState === 0 ? 0 : config.tls ? (config.httpsPort ?? 16993) : (config.httpPort ?? 16992);
  b.writeUInt16BE(port, 16);
  if (major < 16) {
    b.writeUInt8(((major & 0x0f) << 4) | (minor & 0x0f), 18);
  } else {
    // Firmware 16 and later does not fit a nibble: byte 18 is 0 and bytes 22-23 hold major and minor.
    b.writeUInt8(0, 18);
    b.writeUInt8(major, 22);
    b.writeUInt8(minor, 23);
  }
  b.writeUInt8(config.provisioningState & 0x03, 19);
  b.writeUInt8(0x81, 20);
  b.writeUInt8(0x20, 21);
  return b;
}

/** True for a 12-byte ASF presence ping. */
export function isPresencePing(msg: Buffer): boolean {
  return msg.length >= 12 && msg[0] === 0x06 && msg[3] === 0x06 && msg.readUInt32BE(4) === ASF_IANA && msg[8] === 0x80;
}
