/**
 * The framing of what a device sends in a SOL session, as AMT-NOTES lists it (from amtterm's
 * `redir.c` and MeshCommander's `amt-redir-*`): every message starts `<type> 00 00 00 <u32 seq>`
 * and its size follows from its type. A client skips the ones it does not use; failing on one ends
 * sessions that real firmware keeps alive.
 */
import { AmtError } from '../../../workers/amt/errors.js';
import type { StreamReader } from '../../../workers/amt/redirection/stream-reader.js';

/** The messages a device may send in a SOL session. */
export const FROM_DEVICE = {
  /** Answer to the settings (0x20): byte 1 the status, 0 accepted. 23 bytes. */
  settingsReply: 0x21,
  /** Answer to an end-SOL (0x22). 8 bytes. */
  endReply: 0x23,
  /** Answer to a keep-alive ping (0x24). 8 bytes. */
  pong: 0x25,
  /** The host's serial control lines changed (bytes 8 and 9: control and status bits), at any time. 10 bytes. */
  lines: 0x29,
  /** Serial data from the host: a u16 length at byte 8, then the bytes. */
  data: 0x2a,
  /** Heartbeat. 8 bytes. */
  heartbeat: 0x2b,
} as const;

const FIXED_SIZES: ReadonlyMap<number, number> = new Map([
  [FROM_DEVICE.settingsReply, 23],
  [FROM_DEVICE.endReply, 8],
  [FROM_DEVICE.pong, 8],
  [FROM_DEVICE.lines, 10],
  [FROM_DEVICE.heartbeat, 8],
]);
const DATA_HEADER = 10;

/**
 * The size of the device message at the start of `bytes`; null while too few bytes are there to
 * tell (none, or a data header not yet whole).
 * @throws AmtError `AMT_ERR_BAD_RESPONSE` for a type no device sends in a SOL session: its size is
 * unknown, so nothing after it can be framed.
 */
export function solMessageSize(bytes: Buffer): number | null {
  const type = bytes[0];
  if (type === undefined) return null;
  const fixed = FIXED_SIZES.get(type);
  if (fixed !== undefined) return fixed;
  if (type !== FROM_DEVICE.data) throw new AmtError('AMT_ERR_BAD_RESPONSE', `unexpected SOL message 0x${type.toString(16)}`);
  return bytes.length >= DATA_HEADER ? DATA_HEADER + bytes.readUInt16LE(8) : null;
}

/** Reads one whole device message (every one is at least 8 bytes). */
export async function readSolMessage(reader: StreamReader): Promise<Buffer> {
  let message = await reader.read(8);
  for (;;) {
    const size = solMessageSize(message);
    if (size !== null) return size > message.length ? Buffer.concat([message, await reader.read(size - message.length)]) : message;
    message = Buffer.concat([message, await reader.read(DATA_HEADER - message.length)]);
  }
}
