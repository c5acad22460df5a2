/**
 * What a redirection mode adds to the session shape: its set-up on the device stream after the
 * sign-in, and the codec between the device's framing and the viewer's WebSocket messages. KVM and
 * SOL are modes; IDE redirection will be a third one of the same shape.
 */
import type { Duplex } from 'node:stream';
import type { RedirectionMode } from '../../../workers/amt/redirection/redirection-session.js';
import type { StreamReader } from '../../../workers/amt/redirection/stream-reader.js';

export interface SessionCodec {
  /** Device bytes -> the viewer's messages (possibly none). Throws on what breaks the mode's framing. */
  fromDevice(chunk: Buffer): Buffer[];
  /**
   * `fromDevice` returns its chunk as the one message and keeps nothing of it: the relay may then
   * send device reads from reused memory without copying them (KVM's frames).
   */
  passThrough?: boolean;
  /** One viewer message -> device bytes. */
  toDevice(data: Buffer): Buffer[];
  /** A message the device needs at an interval to keep the session open. */
  keepAlive?: { intervalMs: number; message(): Buffer };
}

export interface ModeSpec {
  mode: RedirectionMode;
  /** The mode's set-up once signed in (bounded by the handshake's timeout); returns the codec. */
  begin(reader: StreamReader, stream: Duplex): Promise<SessionCodec>;
}
