/**
 * A simulated device's serial console over SOL: settings 0x20 answered with 0x21, a BIOS-like
 * banner (saying what the last reset booted into), every typed byte echoed, heartbeats (0x2B) both
 * ways, and the session closed when the client falls silent.
 */
import type { Duplex } from 'node:stream';
import type { DeviceState } from '../device-state.js';
import type { ByteReader } from './byte-reader.js';
import { idleClose } from './idle-close.js';

export const SOL = { settings: 0x20, settingsReply: 0x21, control: 0x27, toHost: 0x28, fromHost: 0x2a, heartbeat: 0x2b } as const;
const HEARTBEAT_MS = 2_000;
const MAX_DATA = 4096;

/** What the device's serial port prints after a reset, by what it booted into. */
export function solBanner(state: DeviceState): string {
  const booted = { bios: 'Entering BIOS Setup...', pxe: '>>Start PXE over IPv4.', hdd: 'Booting from Hard Disk...', 'ider-cd': 'Booting from IDE-R CD-ROM...', 'ider-floppy': 'Booting from IDE-R floppy...' }[state.redirection.lastBoot];
  return `\x1b[2J\x1b[HIntel(R) Active Management Technology - Serial Over LAN\r\n${state.hostname} BIOS 1.0 (simulated)\r\n${booted}\r\n> `;
}

function fromHost(seq: number, data: Buffer): Buffer {
  const head = Buffer.from([SOL.fromHost, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  head.writeUInt32LE(seq >>> 0, 4);
  head.writeUInt16LE(data.length, 8);
  return Buffer.concat([head, data]);
}

/** What the console answers to typed bytes: an echo, with Enter as a new line and a prompt. */
function echo(data: Buffer): Buffer {
  return Buffer.from(data.toString('latin1').replace(/\r/g, '\r\n> '), 'latin1');
}

export async function serveSol(state: DeviceState, reader: ByteReader, socket: Duplex): Promise<void> {
  const { redirection } = state;
  let seq = 0;
  const send = (message: Buffer) => {
    if (!socket.destroyed) socket.write(message);
  };
  const heartbeat = () => {
    const beat = Buffer.from([SOL.heartbeat, 0, 0, 0, 0, 0, 0, 0]);
    beat.writeUInt32LE(++seq >>> 0, 4);
    send(beat);
  };
  const idle = idleClose(socket, redirection.timeouts.solIdleMs, redirection.counters);
  const beating = setInterval(heartbeat, HEARTBEAT_MS);
  try {
    const settings = await reader.read(24);
    if (settings[0] !== SOL.settings) return;
    idle.touched();
    const reply = Buffer.alloc(23);
    reply[0] = SOL.settingsReply;
    reply.writeUInt32LE(++seq, 4);
    reply.writeUInt16LE(MAX_DATA, 8); // largest data message the device takes
    reply.writeUInt16LE(MAX_DATA, 10); // largest it sends
    send(reply);
    send(fromHost(++seq, Buffer.from(solBanner(state), 'latin1')));
    for (;;) {
      const head = await reader.read(8);
      idle.touched();
      if (head[0] === SOL.heartbeat) continue;
      if (head[0] === SOL.control) {
        await reader.read(6);
        continue;
      }
      if (head[0] !== SOL.toHost) return;
      const length = (await reader.read(2)).readUInt16LE(0);
      if (length > MAX_DATA) return;
      const data = await reader.read(length);
      send(fromHost(++seq, echo(data)));
    }
  } finally {
    clearInterval(beating);
    idle.stop();
  }
}
