/**
 * A simulated device's IDE-R session after the sign-in: OPEN_SESSION answered with the device's
 * buffers, heartbeats at the interval the console asked, the session closed when the console falls
 * silent beyond its receive timeout; the link is the host's way to its redirected drives.
 */
import type { Duplex } from 'node:stream';
import type { DeviceState } from '../../device-state.js';
import type { ByteReader } from '../byte-reader.js';
import { idleClose } from '../idle-close.js';
import { IderLink, MSG, openReply } from './sim-ider-link.js';

export async function serveIder(state: DeviceState, reader: ByteReader, socket: Duplex): Promise<void> {
  const { redirection } = state;
  const open = await reader.read(18);
  if (open[0] !== MSG.open) return;
  const rxTimeoutMs = open.readUInt16LE(8) || 30_000;
  const heartbeatMs = open.readUInt16LE(12) || 20_000;
  const link = new IderLink(socket, rxTimeoutMs, heartbeatMs);
  const idle = idleClose(socket, rxTimeoutMs, redirection.counters);
  const touch = () => idle.touched();
  socket.on('data', touch);
  const beating = setInterval(() => link.send(link.header(MSG.heartbeat, 8)), heartbeatMs);
  redirection.iderHost.link = link;
  redirection.iderHost.sessions++;
  try {
    link.send(openReply(link));
    await link.run(reader);
  } finally {
    clearInterval(beating);
    idle.stop();
    socket.off('data', touch);
    link.closedNow();
    if (redirection.iderHost.link === link) redirection.iderHost.link = null;
  }
}
