/**
 * Opens a redirection session (SOL, KVM, IDER) to a device and signs in, as Intel's redirection
 * protocol does it: StartRedirectionSession, then AuthenticateSession with Digest (HA2 over
 * `POST:/RedirectionService`). The password stays here; what follows the sign-in is the caller's
 * (`begin`, e.g. the KVM or SOL set-up). Returns the outcome as data, never throws.
 */
import type { Duplex } from 'node:stream';
import { createHash, randomBytes } from 'node:crypto';
import { AmtError, toAmtFailure, type AmtFailure } from '../errors.js';
import type { DeviceTarget, TaskCredential } from '../device-target.js';
import type { OperationMeta } from '../device-operation.js';
import { connectRedirection } from './redirection-connect.js';
import type { SlabReads } from './slab-reads.js';
import { StreamReader } from './stream-reader.js';

export type RedirectionMode = 'sol' | 'kvm' | 'ider';
export const REDIRECTION_URI = '/RedirectionService';
const START_MESSAGES: Record<RedirectionMode, Buffer> = {
  sol: Buffer.from([0x10, 0, 0, 0, 0x53, 0x4f, 0x4c, 0x20]),
  ider: Buffer.from([0x10, 0, 0, 0, 0x49, 0x44, 0x45, 0x52]),
  kvm: Buffer.from([0x10, 1, 0, 0, 0x4b, 0x56, 0x4d, 0x52]),
};
const DIGEST = 4;
const MAX_AUTH_REPLY = 2048;

/** A signed-in session: the stream, the bytes already read past the set-up, and what `begin` returned. */
export interface OpenRedirection<T> {
  stream: Duplex;
  /** Set when the stream reads into these slabs (the `slabReads` asked for, on a plain TCP connection). */
  slabReads: SlabReads | null;
  leftover: Buffer;
  begun: T;
}

export type RedirectionOutcome<T> = ({ ok: true; session: OpenRedirection<T> } | { ok: false; error: AmtFailure }) & OperationMeta;

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

function lengthPrefixed(values: string[]): Buffer {
  return Buffer.concat(values.map((v) => Buffer.concat([Buffer.from([Buffer.byteLength(v)]), Buffer.from(v, 'utf8')])));
}

function authMessage(type: number, data: Buffer): Buffer {
  const head = Buffer.from([0x13, 0, 0, 0, type, 0, 0, 0, 0]);
  head.writeUInt32LE(data.length, 5);
  return Buffer.concat([head, data]);
}

function readPrefixed(data: Buffer, count: number): string[] {
  const out: string[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    const length = data[at];
    if (length === undefined || at + 1 + length > data.length) throw new AmtError('AMT_ERR_BAD_RESPONSE', 'malformed redirection challenge');
    out.push(data.subarray(at + 1, at + 1 + length).toString('utf8'));
    at += 1 + length;
  }
  return out;
}

async function readAuthReply(reader: StreamReader): Promise<{ status: number; type: number; data: Buffer }> {
  const head = await reader.read(9);
  if (head[0] !== 0x14) throw new AmtError('AMT_ERR_BAD_RESPONSE', 'expected an AuthenticateSession reply');
  const length = head.readUInt32LE(5);
  if (length > MAX_AUTH_REPLY) throw new AmtError('AMT_ERR_BAD_RESPONSE', 'oversized AuthenticateSession reply');
  return { status: head[1]!, type: head[4]!, data: await reader.read(length) };
}

async function start(reader: StreamReader, stream: Duplex, mode: RedirectionMode, label: string): Promise<void> {
  stream.write(START_MESSAGES[mode]);
  const reply = await reader.read(13);
  if (reply[0] !== 0x11) throw new AmtError('AMT_ERR_BAD_RESPONSE', 'expected a StartRedirectionSession reply');
  await reader.read(reply[12]!); // OEM data
  const status = reply[1]!;
  if (status === 2) throw new AmtError('AMT_ERR_BUSY', `${label} has a ${mode} session open already`);
  if (status === 1 || status === 3) throw new AmtError('AMT_ERR_UNSUPPORTED', `${label} does not offer ${mode} redirection now`);
  if (status !== 0) throw new AmtError('AMT_ERR_BAD_RESPONSE', `${label} refused the redirection session (status ${status})`);
}

/** Digest sign-in; counts a refusal as one failed login. */
async function signIn(reader: StreamReader, stream: Duplex, credential: TaskCredential, label: string, failed: () => void): Promise<void> {
  stream.write(authMessage(0, Buffer.alloc(0)));
  const methods = await readAuthReply(reader);
  if (!methods.data.includes(DIGEST)) throw new AmtError('AMT_ERR_BAD_RESPONSE', `${label} offers no Digest sign-in for redirection`);
  stream.write(authMessage(DIGEST, lengthPrefixed([credential.username, '', '', REDIRECTION_URI, '', '', '', ''])));
  const challenge = await readAuthReply(reader);
  if (challenge.type !== DIGEST) throw new AmtError('AMT_ERR_BAD_RESPONSE', `${label} sent no Digest challenge`);
  const [realm, nonce, qop] = readPrefixed(challenge.data, 3) as [string, string, string];
  const cnonce = randomBytes(16).toString('hex');
  const nc = '00000001';
  const ha1 = md5(`${credential.username}:${realm}:${credential.password}`);
  const ha2 = md5(`POST:${REDIRECTION_URI}`);
  const response = md5(`${ha1}:${nonce}:${nc}:${cnonce}:${qop}:${ha2}`);
  stream.write(authMessage(DIGEST, lengthPrefixed([credential.username, realm, nonce, REDIRECTION_URI, cnonce, nc, response, qop])));
  const verdict = await readAuthReply(reader).catch((error: unknown) => {
    // A device that drops the connection instead of answering has refused the sign-in.
    if ((error as { code?: string }).code === 'AMT_ERR_CONNECTION_LOST') return { status: 1 };
    throw error;
  });
  if (verdict.status !== 0) {
    failed();
    throw new AmtError('AMT_ERR_UNAUTHORIZED', `${label} refused the credentials`, { status: 401 });
  }
}

/**
 * Connects, starts a `mode` session, signs in with `credential`, then runs `begin` (the mode's own
 * set-up) on the same reader. The handshake is bounded by the target's total timeout.
 */
export async function openRedirectionSession<T>(
  target: DeviceTarget,
  credential: TaskCredential,
  mode: RedirectionMode,
  begin: (reader: StreamReader, stream: Duplex) => Promise<T>,
  cancel?: AbortSignal,
  slabReads?: SlabReads,
): Promise<RedirectionOutcome<T>> {
  const started = performance.now();
  let failedLogins = 0;
  let tlsFingerprint: string | null = null;
  let tlsProtocol: string | null = null;
  let stream: Duplex | undefined;
  const meta = () => ({ failedLogins, tlsFingerprint, tlsProtocol, roundTrips: 0, elapsedMs: Math.round(performance.now() - started) });
  try {
    if (typeof credential?.username !== 'string' || typeof credential.password !== 'string') throw new AmtError('AMT_ERR_INVALID_INPUT', 'a credential is required');
    const connection = await connectRedirection(target, cancel, slabReads);
    ({ stream, tlsFingerprint, tlsProtocol } = connection);
    const opened = stream;
    opened.on('error', () => undefined);
    const label = target.channel ? target.channel.key : `${target.address}:${target.port}`;
    const totalMs = target.timeouts?.totalMs ?? 30_000;
    const timer = setTimeout(() => opened.destroy(), totalMs);
    try {
      const reader = new StreamReader(opened, label);
      await start(reader, opened, mode, label);
      await signIn(reader, opened, credential, label, () => void failedLogins++);
      const begun = await begin(reader, opened);
      return { ok: true, session: { stream: opened, slabReads: connection.slabReads, leftover: reader.release(), begun }, ...meta() };
    } finally {
      clearTimeout(timer);
    }
  } catch (error) {
    stream?.destroy();
    return { ok: false, error: toAmtFailure(error), ...meta() };
  }
}
