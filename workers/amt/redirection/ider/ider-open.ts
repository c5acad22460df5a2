/**
 * The IDE-R set-up after the redirection sign-in: OPEN_SESSION with the timeouts and heartbeat the
 * session keeps, the device's OPEN_SESSION_REPLY (its read buffer size bounds every data piece),
 * then the register state that attaches the drives (by default at the host's next reboot).
 */
import type { Duplex } from 'node:stream';
import { AmtError } from '../../errors.js';
import type { StreamReader } from '../stream-reader.js';
import { checkOpenReply } from './ider-server.js';
import { IDER, IderEncoder, REGISTER_STATE, type OpenReply } from './ider-wire.js';

export interface IderOpenOptions {
  /** The device closes the session after this long without a message from the gateway (ms, ≤ 65535). */
  rxTimeoutMs: number;
  /** The device's heartbeat interval (ms, ≤ 65535). */
  heartbeatMs: number;
  /** When the host sees the drives: at its next reboot (boot from them), or at once. */
  attach: keyof typeof REGISTER_STATE & ('onReboot' | 'graceful' | 'now');
}

export interface IderOpened {
  encoder: IderEncoder;
  reply: OpenReply;
}

/** The `begin` of an IDE-R redirection session (see openRedirectionSession). */
export function iderBegin(options: IderOpenOptions) {
  return async (reader: StreamReader, stream: Duplex): Promise<IderOpened> => {
    const encoder = new IderEncoder();
    stream.write(encoder.open(options.rxTimeoutMs, 0, options.heartbeatMs));
    const head = await reader.read(30);
    if (head[0] !== IDER.openReply) throw new AmtError('AMT_ERR_BAD_RESPONSE', `expected an IDE-R OPEN_SESSION reply, got 0x${head[0]!.toString(16)}`);
    await reader.read(head[29]!); // OEM data
    const readBufferSize = head.readUInt16LE(16);
    checkOpenReply(readBufferSize);
    const reply: OpenReply = {
      major: head[8]!,
      minor: head[9]!,
      firmwareMajor: head[10]!,
      firmwareMinor: head[11]!,
      readBufferSize,
      writeBufferSize: head.readUInt16LE(18),
      protocol: head[21]!,
      iana: head.readUInt32LE(25),
    };
    stream.write(encoder.enable(REGISTER_STATE[options.attach]));
    return { encoder, reply };
  };
}
