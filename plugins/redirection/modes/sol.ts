/**
 * Serial over LAN: the gateway speaks AMT's SOL framing so the viewer sees plain terminal bytes.
 * Settings 0x20 (answered 0x21), data to the device 0x28 and from it 0x2A (`<type> 00 00 00 <u32
 * seq> <u16 length> <bytes>`), heartbeats 0x2B (`<type> 00 00 00 <u32 seq>`) both ways. Everything
 * else the device may send is framed and skipped (`sol-framing.ts`).
 */
import type { Duplex } from 'node:stream';
import { AmtError } from '../../../workers/amt/errors.js';
import type { StreamReader } from '../../../workers/amt/redirection/stream-reader.js';
import type { ModeSpec, SessionCodec } from './mode.js';
import { FROM_DEVICE, readSolMessage, solMessageSize } from './sol-framing.js';

const TO_DEVICE = { settings: 0x20, data: 0x28, heartbeat: 0x2b } as const;
const MAX_TX = 1000;
const HEARTBEAT_MS = 2_000;
/** Bytes the codec holds while a device message is incomplete; a longer one breaks the framing. */
const MAX_PENDING = 70_000;
/** Messages the device may send before its settings reply (heartbeats, line changes) before the set-up counts as broken. */
const MAX_BEFORE_SETTINGS_REPLY = 32;

function settings(): Buffer {
  const message = Buffer.alloc(24);
  message[0] = TO_DEVICE.settings;
  message.writeUInt32LE(1, 4); // sequence
  message.writeUInt16LE(MAX_TX, 8); // MaxTxBuffer
  message.writeUInt16LE(100, 10); // TxTimeout (ms)
  message.writeUInt16LE(0, 12); // TxOverflowTimeout
  message.writeUInt16LE(30_000, 14); // RxTimeout
  message.writeUInt16LE(100, 16); // RxFlushTimeout
  message.writeUInt16LE(HEARTBEAT_MS, 18); // Heartbeat interval
  return message;
}

/**
 * Frames and unframes one session's SOL traffic, numbering what it sends. Of the device's messages
 * only data (0x2A) reaches the viewer; the others are skipped whole. `held` is device bytes read
 * before the codec existed, handed out with the first chunk.
 */
export function solCodec(held: Buffer = Buffer.alloc(0)): SessionCodec {
  let seq = 1;
  let pending: Buffer = held;
  const header = (type: number, extra: number) => {
    const message = Buffer.alloc(8 + extra);
    message[0] = type;
    message.writeUInt32LE(++seq >>> 0, 4);
    return message;
  };
  return {
    fromDevice(chunk) {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      const out: Buffer[] = [];
      for (;;) {
        const size = solMessageSize(pending);
        if (size === null || pending.length < size) break;
        if (pending[0] === FROM_DEVICE.data && size > 10) out.push(Buffer.from(pending.subarray(10, size)));
        pending = pending.subarray(size);
      }
      if (pending.length > MAX_PENDING) throw new AmtError('AMT_ERR_BAD_RESPONSE', 'oversized SOL message');
      return out;
    },
    toDevice(data) {
      const out: Buffer[] = [];
      for (let at = 0; at < data.length; at += MAX_TX) {
        const part = data.subarray(at, at + MAX_TX);
        const message = header(TO_DEVICE.data, 2 + part.length);
        message.writeUInt16LE(part.length, 8);
        part.copy(message, 10);
        out.push(message);
      }
      return out;
    },
    keepAlive: { intervalMs: HEARTBEAT_MS, message: () => header(TO_DEVICE.heartbeat, 0) },
  };
}

/**
 * Sends the settings and waits for the device's answer (0x21, status 0). Heartbeats and line
 * changes may come first; data that does is kept for the viewer.
 */
async function begin(reader: StreamReader, stream: Duplex): Promise<SessionCodec> {
  stream.write(settings());
  const held: Buffer[] = [];
  for (let before = 0; before <= MAX_BEFORE_SETTINGS_REPLY; before++) {
    const message = await readSolMessage(reader);
    if (message[0] === FROM_DEVICE.data) held.push(message);
    if (message[0] !== FROM_DEVICE.settingsReply) continue;
    if (message[1] !== 0) throw new AmtError('AMT_ERR_BAD_RESPONSE', `the device refused the SOL settings (status ${message[1]})`);
    return solCodec(Buffer.concat(held));
  }
  throw new AmtError('AMT_ERR_BAD_RESPONSE', 'the device did not answer the SOL settings');
}

export const SOL_MODE: ModeSpec = { mode: 'sol', begin };
