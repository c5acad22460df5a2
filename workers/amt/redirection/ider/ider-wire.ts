/**
 * IDE-R message framing (see PROTOCOL.md): the console's messages built, the device's messages cut
 * from the byte stream. Integers little-endian; each side numbers its own messages.
 */
import { AmtError } from '../../errors.js';

export const IDER = {
  open: 0x40,
  openReply: 0x41,
  close: 0x42,
  closeReply: 0x43,
  ping: 0x44,
  pong: 0x45,
  reset: 0x46,
  resetResponse: 0x47,
  features: 0x48,
  featuresReply: 0x49,
  error: 0x4a,
  heartbeat: 0x4b,
  commandWritten: 0x50,
  commandEnd: 0x51,
  getData: 0x52,
  dataFromHost: 0x53,
  dataToHost: 0x54,
} as const;

/** Drive select values: device 0 (floppy) and device 1 (CD-ROM). */
export const DRIVE = { floppy: 0xa0, cd: 0xb0 } as const;
export type DriveSelect = (typeof DRIVE)[keyof typeof DRIVE];

/** `DISABLE_ENABLE_FEATURES` set-register-state values: enable, and when the host sees the drives. */
export const REGISTER_STATE = { enable: 0x01, onReboot: 0x08, graceful: 0x10, now: 0x18 } as const;

const ATTR_COMPLETED = 0x02;
const ATTR_DMA = 0x01;
export const DATA_HEADER = 34;
const END_LENGTH = 31;
const STATUS = { drdyDsc: 0x50, drq: 0x08, err: 0x01 } as const;
const REASON = { io: 0x02, cdIo: 0x03 } as const;
const MASK = { dataPio: 0xb5, dataDma: 0xb4, dataEnd: 0x85, good: 0xc5, check: 0x87 } as const;

/** What OPEN_SESSION_REPLY says of the device. */
export interface OpenReply {
  major: number;
  minor: number;
  firmwareMajor: number;
  firmwareMinor: number;
  /** Largest data piece the device takes in one DATA_TO_HOST. */
  readBufferSize: number;
  writeBufferSize: number;
  protocol: number;
  iana: number;
}

/** A message from the device, cut from the stream. */
export type DeviceMessage =
  | { type: typeof IDER.openReply; seq: number; reply: OpenReply }
  | { type: typeof IDER.commandWritten; seq: number; dma: boolean; drive: DriveSelect; command: number; cdb: Buffer }
  | { type: typeof IDER.featuresReply; seq: number; featureType: number; value: number }
  | { type: typeof IDER.reset; seq: number; mask: number }
  | { type: typeof IDER.error; seq: number; code: number }
  | { type: typeof IDER.closeReply | typeof IDER.ping | typeof IDER.pong | typeof IDER.heartbeat; seq: number }
  | { type: typeof IDER.dataFromHost; seq: number; length: number };

/** Fixed lengths of the device's messages (0x41 and 0x53 carry their own). */
const FIXED: Record<number, number> = {
  [IDER.closeReply]: 8,
  [IDER.ping]: 8,
  [IDER.pong]: 8,
  [IDER.heartbeat]: 8,
  [IDER.reset]: 9,
  [IDER.error]: 11,
  [IDER.featuresReply]: 13,
  [IDER.commandWritten]: 28,
};

/** Length of the device message at the start of `data`; 0 when more bytes are needed. Throws on an unknown type. */
export function deviceMessageLength(data: Buffer): number {
  if (data.length < 8) return 0;
  const type = data[0]!;
  const fixed = FIXED[type];
  if (fixed !== undefined) return data.length >= fixed ? fixed : 0;
  if (type === IDER.openReply) return data.length >= 30 && data.length >= 30 + data[29]! ? 30 + data[29]! : 0;
  if (type === IDER.dataFromHost) return data.length >= 14 && data.length >= 14 + data.readUInt16LE(9) ? 14 + data.readUInt16LE(9) : 0;
  throw new AmtError('AMT_ERR_BAD_RESPONSE', `unexpected IDE-R message 0x${type.toString(16)}`);
}

/** Decodes one whole device message (`deviceMessageLength` bytes). */
export function decodeDeviceMessage(m: Buffer): DeviceMessage {
  const type = m[0]!;
  const seq = m.readUInt32LE(4);
  switch (type) {
    case IDER.openReply:
      return {
        type,
        seq,
        reply: {
          major: m[8]!,
          minor: m[9]!,
          firmwareMajor: m[10]!,
          firmwareMinor: m[11]!,
          readBufferSize: m.readUInt16LE(16),
          writeBufferSize: m.readUInt16LE(18),
          protocol: m[21]!,
          iana: m.readUInt32LE(25),
        },
      };
    case IDER.commandWritten:
      return { type, seq, dma: (m[9]! & 1) === 1, drive: (m[14]! & 0x10) !== 0 ? DRIVE.cd : DRIVE.floppy, command: m[15]!, cdb: Buffer.from(m.subarray(16, 28)) };
    case IDER.featuresReply:
      return { type, seq, featureType: m[8]!, value: m.readUInt32LE(9) };
    case IDER.reset:
      return { type, seq, mask: m[8]! };
    case IDER.error:
      return { type, seq, code: m[8]! };
    case IDER.dataFromHost:
      return { type, seq, length: m.readUInt16LE(9) };
    case IDER.closeReply:
    case IDER.ping:
    case IDER.pong:
    case IDER.heartbeat:
      return { type, seq };
    default:
      throw new AmtError('AMT_ERR_BAD_RESPONSE', `unexpected IDE-R message 0x${type.toString(16)}`);
  }
}

/** Numbers and builds the console's messages of one session. */
export class IderEncoder {
  #seq = 0;

  #header(buffer: Buffer, type: number, attributes: number): Buffer {
    buffer[0] = type;
    buffer[3] = attributes;
    buffer.writeUInt32LE(this.#seq++ >>> 0, 4);
    return buffer;
  }

  /** OPEN_SESSION with the device's timeouts and heartbeat interval (ms, at most 65535). */
  open(rxTimeoutMs: number, txTimeoutMs: number, heartbeatMs: number): Buffer {
    const m = this.#header(Buffer.alloc(18), IDER.open, 0);
    m.writeUInt16LE(rxTimeoutMs, 8);
    m.writeUInt16LE(txTimeoutMs, 10);
    m.writeUInt16LE(heartbeatMs, 12);
    m.writeUInt32LE(1, 14);
    return m;
  }

  /** DISABLE_ENABLE_FEATURES set register state: the drives appear to the host at `when`. */
  enable(when: number): Buffer {
    const m = this.#header(Buffer.alloc(13), IDER.features, 0);
    m[8] = 3;
    m.writeUInt32LE(REGISTER_STATE.enable | when, 9);
    return m;
  }

  /** An 8-byte message without a body (close, ping, pong, reset response, heartbeat). */
  bare(type: typeof IDER.close | typeof IDER.ping | typeof IDER.pong | typeof IDER.resetResponse | typeof IDER.heartbeat): Buffer {
    return this.#header(Buffer.alloc(8), type, 0);
  }

  /** COMMAND_END_RESPONSE: good status, or check condition with the sense key, ASC and ASCQ. */
  commandEnd(drive: DriveSelect, sense?: { key: number; asc: number; ascq: number }): Buffer {
    const m = this.#header(Buffer.alloc(END_LENGTH), IDER.commandEnd, ATTR_COMPLETED);
    const out = 20;
    m[out] = sense ? MASK.check : MASK.good;
    m[out + 2] = REASON.cdIo;
    m[out + 6] = drive;
    m[out + 7] = sense ? STATUS.drdyDsc | STATUS.err : STATUS.drdyDsc;
    if (sense) {
      m[out + 1] = sense.key << 4;
      m[28] = sense.key;
      m[29] = sense.asc;
      m[30] = sense.ascq;
    }
    return m;
  }

  /**
   * Writes the 34-byte DATA_TO_HOST header for `length` data bytes into `into` at `at` (the data
   * follows it there); `last` ends the command with good status.
   */
  dataHeader(into: Buffer, at: number, drive: DriveSelect, length: number, last: boolean, dma: boolean): void {
    into.fill(0, at, at + DATA_HEADER);
    into[at] = IDER.dataToHost;
    into[at + 3] = (last ? ATTR_COMPLETED : 0) | (dma ? ATTR_DMA : 0);
    into.writeUInt32LE(this.#seq++ >>> 0, at + 4);
    into.writeUInt16LE(length, at + 9);
    const input = at + 12;
    into[input] = dma ? MASK.dataDma : MASK.dataPio;
    into[input + 2] = REASON.io;
    if (!dma) into.writeUInt16LE(length, input + 4);
    into[input + 6] = drive;
    into[input + 7] = STATUS.drdyDsc | STATUS.drq;
    if (last) {
      const output = at + 20;
      into[output] = MASK.dataEnd;
      into[output + 2] = REASON.cdIo;
      into[output + 6] = drive;
      into[output + 7] = STATUS.drdyDsc;
    }
  }

  /** Messages sent so far (the next sequence number). */
  get sent(): number {
    return this.#seq;
  }
}
