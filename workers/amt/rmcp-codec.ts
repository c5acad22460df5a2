/**
 * RMCP / ASF presence ping and pong (UDP 623): the unauthenticated way to find AMT devices and read
 * their version, provisioning state and open management port.
 */

/** IANA enterprise number of the ASF (4542), carried in every ASF message. */
const ASF_IANA = 4542;
/** IANA enterprise number of Intel (343), the OEM of an AMT pong. */
export const INTEL_IANA = 343;
const TYPE_PING = 0x80;
const TYPE_PONG = 0x40;
/** Bytes in a presence pong: 12 of header and 16 of data. */
export const PONG_LENGTH = 28;

export type ProvisioningStateName = 'PRE' | 'IN' | 'POST';

/** What a presence pong says about a device. */
export interface RmcpPong {
  /** The message tag echoed from the ping. */
  tag: number;
  /** OEM IANA number: 343 for Intel AMT. */
  oemIana: number;
  /** True for an Intel (AMT) pong. */
  intel: boolean;
  /** Management port the device advertises (16992 or 16993); null when AMT is present but not set up (0). */
  managementPort: number | null;
  /** `major.minor`, e.g. `11.8`. */
  version: string;
  provisioningState: 0 | 1 | 2 | 3;
  provisioningStateName: ProvisioningStateName | null;
  supportedEntities: number;
  supportedInteractions: number;
  /** Bit 0x20 of supported interactions. */
  dashCapable: boolean;
}

/**
 * Encodes a 12-byte presence ping: `06 00 00 06` (RMCP v1, reserved, sequence, class ASF),
 * IANA 4542, type 0x80, the tag, reserved, data length 0.
 */
export function encodePresencePing(tag: number): Buffer {
  const buf = Buffer.alloc(12);
  buf.writeUInt8(0x06, 0); // RMCP version 1
  buf.writeUInt8(0x00, 1); // reserved
  buf.writeUInt8(0x00, 2); // sequence, as AMT-NOTES gives the ping; an RMCP ACK, if any, is ignored
  buf.writeUInt8(0x06, 3); // class ASF
  buf.writeUInt32BE(ASF_IANA, 4);
  buf.writeUInt8(TYPE_PING, 8);
  buf.writeUInt8(tag & 0xff, 9);
  buf.writeUInt8(0x00, 10);
  buf.writeUInt8(0x00, 11);
  return buf;
}

/** Decodes a presence pong, or returns null for anything else (wrong class, type, IANA or length). */
export function decodePresencePong(buf: Buffer): RmcpPong | null {
  if (buf.length < PONG_LENGTH) return null;
  if (buf[0] !== 0x06 || buf[3] !== 0x06) return null;
  if (buf.readUInt32BE(4) !== ASF_IANA || buf[8] !== TYPE_PONG) return null;
  if (buf[11]! < 16) return null;
  const oemIana = buf.readUInt32BE(12);
  const port = buf.readUInt16BE(16);
  let major = buf[18]! >> 4;
  let minor = buf[18]! & 0x0f;
  if (buf[18] === 0) {
    // Newer firmware (major >= 16) no longer fits a nibble and moves the version to bytes 22-23.
    major = buf[22]!;
    minor = buf[23]!;
  }
  const provisioningState = (buf[19]! & 0x03) as 0 | 1 | 2 | 3;
  const names: Array<ProvisioningStateName | null> = ['PRE', 'IN', 'POST', null];
  return {
    tag: buf[9]!,
    oemIana,
    intel: oemIana === INTEL_IANA,
    managementPort: port === 0 ? null : port,
    version: `${major}.${minor}`,
    provisioningState,
    provisioningStateName: names[provisioningState]!,
    supportedEntities: buf[20]!,
    supportedInteractions: buf[21]!,
    dashCapable: (buf[21]! & 0x20) !== 0,
  };
}
