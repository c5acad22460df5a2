/**
 * Serial over LAN: the gateway speaks AMT's SOL framing so the viewer sees plain terminal bytes.
 * Settings 0x20 (answered 0x21), data to the device 0x28 and from it 0x2A (`<type> 00 00 00 <u32
 * seq> <u16 length> <bytes>`), heartbeats 0x2B (`<type> 00 00 00 <u32 seq>`) both ways.
 */
import { AmtError } from '../../../workers/amt/errors.js';
import type { ModeSpec, SessionCodec } from './mode.js';

const SOL = { settings: 0x20, settingsReply: 0x21, control: 0x27, toHost: 0x28, fromHost: 0x2a, heartbeat: 0x2b } as const;
const MAX_TX = 1000;
const HEARTBEAT_MS = 2_000;
/** Bytes the codec holds while a device message is incomplete; a longer one breaks the framing. */
const MAX_PENDING = 70_000;

function settings(): Buffer {
  const message = Buffer.alloc(24);
  message[0] = SOL.settings;
  message.writeUInt32LE(1, 4); // sequence
  message.writeUInt16LE(MAX_TX, 8); // MaxTxBuffer
  message.writeUInt16LE(100, 10); // TxTimeout (ms)
  message.writeUInt16LE(0, 12); // TxOverflowTimeout
  message.writeUInt16LE(30_000, 14); // RxTimeout
  message.writeUInt16LE(100, 16); // RxFlushTimeout
  message.writeUInt16LE(HEARTBEAT_MS, 18); // Heartbeat interval
  return message;
}

/** Frames and unframes one session's SOL traffic, numbering what it sends. */
export function solCodec(): SessionCodec {
  let seq = 1;
  let pending: Buffer = Buffer.alloc(0);
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
        const type = pending[0];
        if (type === undefined) break;
        let size: number;
        if (type === SOL.fromHost) size = pending.length >= 10 ? 10 + pending.readUInt16LE(8) : Infinity;
        else if (type === SOL.heartbeat) size = 8;
        else if (type === SOL.settingsReply) size = 23;
        else throw new AmtError('AMT_ERR_BAD_RESPONSE', `unexpected SOL message 0x${type.toString(16)}`);
        if (pending.length < size) break;
        if (type === SOL.fromHost && size > 10) out.push(Buffer.from(pending.subarray(10, size)));
        pending = pending.subarray(size);
      }
      if (pending.length > MAX_PENDING) throw new AmtError('AMT_ERR_BAD_RESPONSE', 'oversized SOL message');
      return out;
    },
    toDevice(data) {
      const out: Buffer[] = [];
      for (let at = 0; at < data.length; at += MAX_TX) {
        const part = data.subarray(at, at + MAX_TX);
        const message = header(SOL.toHost, 2 + part.length);
        message.writeUInt16LE(part.length, 8);
        part.copy(message, 10);
        out.push(message);
      }
      return out;
    },
    keepAlive: { intervalMs: HEARTBEAT_MS, message: () => header(SOL.heartbeat, 0) },
  };
}

export const SOL_MODE: ModeSpec = {
  mode: 'sol',
  async begin(reader, stream) {
    stream.write(settings());
    const reply = await reader.read(23);
    if (reply[0] !== SOL.settingsReply) throw new AmtError('AMT_ERR_BAD_RESPONSE', 'the device did not accept the SOL settings');
    return solCodec();
  },
};
