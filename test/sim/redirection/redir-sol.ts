/**
 * A simulated device's serial console over SOL: settings 0x20 answered with 0x21 and, in the same
 * write, the host's serial lines (0x29; amtterm: "likely to be one of the first messages"), a
 * BIOS-like banner (saying what the last reset booted into), every typed byte echoed, the lines
 * again whenever they change, heartbeats (0x2B) both ways, pings (0x24) answered with 0x25, an
 * end-SOL (0x22) answered with 0x23 before the device closes, and the session closed when the client
 * falls silent.
 */
import type { Duplex } from 'node:stream';
import type { DeviceState } from '../device-state.js';
import type { ByteReader } from './byte-reader.js';
import { idleClose } from './idle-close.js';

export const SOL = {
  settings: 0x20,
  settingsReply: 0x21,
  end: 0x22,
  endReply: 0x23,
  ping: 0x24,
  pong: 0x25,
  control: 0x27,
  toHost: 0x28,
  lines: 0x29,
  fromHost: 0x2a,
  heartbeat: 0x2b,
} as const;
const HEARTBEAT_MS = 2_000;
const MAX_DATA = 4096;

/** What the device's serial port prints after a reset, by what it booted into. */
export function solBanner(state: DeviceState): string {
  const booted = { bios: 'Entering BIOS Setup...', pxe: '>>Start PXE over IPv4.', hdd: 'Booting from Hard Disk...', 'ider-cd': 'Booting from IDE-R CD-ROM...', 'ider-floppy': 'Booting from IDE-R floppy...' }[state.redirection.lastBoot];
  return `\x1b[2J\x1b[HIntel(R) Active Management Technology - Serial Over LAN\r\n${state.hostname} BIOS 1.0 (simulated)\r\n${booted}\r\n> `;
}

/** What the console answers to typed bytes: an echo, with Enter as a new line and a prompt. */
function echo(data: Buffer): Buffer {
  return Buffer.from(data.toString('latin1').replace(/\r/g, '\r\n> '), 'latin1');
}

export async function serveSol(state: DeviceState, reader: ByteReader, socket: Duplex): Promise<void> {
  const { redirection } = state;
  const host = redirection.solHost;
  let seq = 0;
  /** `<type> 00 00 00 <u32 seq>` and the rest. */
  const message = (type: number, rest: Buffer = Buffer.alloc(0)) => {
    const head = Buffer.from([type, 0, 0, 0, 0, 0, 0, 0]);
    head.writeUInt32LE(++seq >>> 0, 4);
    return Buffer.concat([head, rest]);
  };
  // Writes wait here while the rest of a split write does, so nothing overtakes it.
  let held: Buffer[] | null = null;
  const send = (bytes: Buffer) => {
    if (held) held.push(bytes);
    else if (!socket.destroyed) socket.write(bytes);
  };
  /** Sends `bytes` in two writes a turn of the event loop apart, split at `at`. */
  const sendSplit = (bytes: Buffer, at: number) => {
    send(bytes.subarray(0, at));
    if (held) return void held.push(bytes.subarray(at));
    held = [bytes.subarray(at)];
    setImmediate(() => {
      const rest = held ?? [];
      held = null;
      for (const part of rest) send(part);
    });
  };
  const lines = () => {
    host.counters.linesSent++;
    return message(SOL.lines, Buffer.from([host.control, host.status]));
  };
  const data = (bytes: Buffer) => {
    const length = Buffer.alloc(2);
    length.writeUInt16LE(bytes.length, 0);
    return message(SOL.fromHost, Buffer.concat([length, bytes]));
  };
  const pong = () => {
    host.counters.pongsSent++;
    return message(SOL.pong);
  };
  const endReply = () => {
    host.counters.endRepliesSent++;
    return message(SOL.endReply);
  };
  /** An echo; a chattering device puts every other message type around and inside it, in two writes. */
  const answer = (bytes: Buffer) => {
    if (!host.chatter || bytes.length < 2) return send(data(bytes));
    const half = bytes.length >> 1;
    const all = Buffer.concat([pong(), lines(), data(bytes.subarray(0, half)), message(SOL.heartbeat), endReply(), data(bytes.subarray(half)), pong()]);
    // Split inside a message, so the client meets a partial one.
    sendSplit(all, 13);
  };
  const idle = idleClose(socket, redirection.timeouts.solIdleMs, redirection.counters);
  const beating = setInterval(() => send(message(SOL.heartbeat)), HEARTBEAT_MS);
  let stopLines: () => void = () => undefined;
  try {
    const settings = await reader.read(24);
    if (settings[0] !== SOL.settings) return;
    idle.touched();
    const reply = message(SOL.settingsReply, Buffer.alloc(15));
    reply.writeUInt16LE(MAX_DATA, 8); // largest data message the device takes
    reply.writeUInt16LE(MAX_DATA, 10); // largest it sends
    send(Buffer.concat([reply, lines(), host.unknownMessageAtStart ? message(0x77) : Buffer.alloc(0)]));
    stopLines = host.onChange(() => send(lines()));
    send(data(Buffer.from(solBanner(state), 'latin1')));
    for (;;) {
      const head = await reader.read(8);
      idle.touched();
      if (head[0] === SOL.heartbeat) continue;
      if (head[0] === SOL.ping) {
        send(pong());
        continue;
      }
      if (head[0] === SOL.end) return void send(endReply());
      if (head[0] === SOL.control) {
        await reader.read(6);
        continue;
      }
      if (head[0] !== SOL.toHost) return;
      const length = (await reader.read(2)).readUInt16LE(0);
      if (length > MAX_DATA) return;
      answer(echo(await reader.read(length)));
    }
  } finally {
    stopLines();
    clearInterval(beating);
    idle.stop();
  }
}
