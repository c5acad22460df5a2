/**
 * The redirection port of a simulated device (16994, 16995 with TLS, or a CIRA channel to either):
 * StartRedirectionSession, AuthenticateSession with Digest over `POST:/RedirectionService` (failures
 * count toward the same lockout as WS-Management), then the SOL or KVM session. Written from
 * AMT-NOTES (Redirection), independently of the gateway's side.
 */
import type { Duplex } from 'node:stream';
import type { DeviceState } from '../device-state.js';
import { ByteReader, StreamEnded } from './byte-reader.js';
import type { RedirectionMode } from './redir-state.js';
import { serveKvm } from './redir-kvm.js';
import { serveSol } from './redir-sol.js';
import { serveIder } from './ider/sim-ider.js';

const START = 0x10;
const START_REPLY = 0x11;
const AUTH = 0x13;
const AUTH_REPLY = 0x14;
const STATUS = { ok: 0, unknownType: 1, busy: 2, unsupported: 3 } as const;
const DIGEST = 4;
/** Start and sign-in must be over within this (a client that stalls there holds nothing for long). */
const HANDSHAKE_MS = 15_000;
const MAX_AUTH_MESSAGES = 4;
const MAX_AUTH_BYTES = 2048;
export const REDIRECTION_URI = '/RedirectionService';

function startReply(status: number): Buffer {
  // 11 <status> 00 00, 8 bytes (protocol version 1.0), OEM length 0.
  return Buffer.from([START_REPLY, status, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
}

function authReply(status: number, type: number, data: Buffer): Buffer {
  const head = Buffer.from([AUTH_REPLY, status, 0, 0, type, 0, 0, 0, 0]);
  head.writeUInt32LE(data.length, 5);
  return Buffer.concat([head, data]);
}

function lengthPrefixed(...values: string[]): Buffer {
  return Buffer.concat(values.map((v) => Buffer.concat([Buffer.from([Buffer.byteLength(v)]), Buffer.from(v, 'utf8')])));
}

/** The Digest fields of a type-4 AuthenticateSession message, in their order on the wire. */
const DIGEST_FIELDS = ['username', 'realm', 'nonce', 'uri', 'cnonce', 'nc', 'response', 'qop'] as const;

function parseDigestFields(data: Buffer): Map<string, string> | null {
  const out = new Map<string, string>();
  let at = 0;
  for (const name of DIGEST_FIELDS) {
    if (at >= data.length) return null;
    const length = data[at]!;
    if (at + 1 + length > data.length) return null;
    out.set(name, data.subarray(at + 1, at + 1 + length).toString('utf8'));
    at += 1 + length;
  }
  return out;
}

function modeOf(start: Buffer): RedirectionMode | null {
  const kind = start.subarray(4, 8).toString('latin1');
  if (kind === 'SOL ') return 'sol';
  if (kind === 'IDER') return 'ider';
  if (kind === 'KVMR') return 'kvm';
  return null;
}

/** Serves one connection to the redirection port; never throws, always ends the connection. */
export function serveRedirection(state: DeviceState, socket: Duplex): void {
  const redirection = state.redirection;
  socket.on('error', () => undefined);
  // With the listener off the port takes no session at all.
  if (!redirection.listener) {
    socket.destroy();
    return;
  }
  const reader = new ByteReader(socket);
  const handshake = setTimeout(() => socket.destroy(), HANDSHAKE_MS);
  let mode: RedirectionMode | null = null;
  void (async () => {
    const start = await reader.read(8);
    redirection.counters.starts++;
    mode = start[0] === START ? modeOf(start) : null;
    if (mode === null) return void socket.end(startReply(STATUS.unknownType));
    if (redirection.open.has(mode)) {
      redirection.counters.busy++;
      mode = null;
      return void socket.end(startReply(STATUS.busy));
    }
    if (!redirection.enabled(mode)) {
      mode = null;
      return void socket.end(startReply(STATUS.unsupported));
    }
    redirection.sessionStarted(mode);
    socket.write(startReply(STATUS.ok));
    if (!(await authenticate(state, reader, socket))) return void socket.end();
    clearTimeout(handshake);
    // Consent the device needs and has not been given: the session goes no further.
    if (redirection.needsConsent(mode)) return void socket.end();
    if (mode === 'sol') await serveSol(state, reader, socket);
    else if (mode === 'ider') await serveIder(state, reader, socket);
    else await serveKvm(state, reader, socket);
  })()
    .catch((error: unknown) => {
      if (!(error instanceof StreamEnded)) socket.destroy();
    })
    .finally(() => {
      clearTimeout(handshake);
      if (mode) redirection.sessionEnded(mode);
      if (!socket.destroyed) socket.end();
    });
}

/** The AuthenticateSession exchange; true once signed in. Refusals end the connection, as AMT does. */
async function authenticate(state: DeviceState, reader: ByteReader, socket: Duplex): Promise<boolean> {
  const { digest } = state;
  for (let message = 0; message < MAX_AUTH_MESSAGES; message++) {
    const head = await reader.read(9);
    const length = head.readUInt32LE(5);
    if (head[0] !== AUTH || length > MAX_AUTH_BYTES) return false;
    const type = head[4]!;
    const data = await reader.read(length);
    if (type === 0) {
      // The methods on offer: Digest only (no Basic: it would carry the password in the clear).
      socket.write(authReply(0, 0, Buffer.from([DIGEST])));
      continue;
    }
    if (type !== DIGEST) return false;
    const fields = parseDigestFields(data);
    if (!fields) return false;
    // The first Digest message names the user and asks for the realm and a nonce.
    if (fields.get('nonce') === '' && fields.get('response') === '') {
      socket.write(authReply(1, DIGEST, lengthPrefixed(digest.account.realm, digest.issueNonce(), 'auth')));
      continue;
    }
    const verdict = digest.verifyParams(fields, 'POST', REDIRECTION_URI);
    state.counters.authAttempts++;
    if (verdict === 'ok') {
      state.redirection.counters.signIns++;
      socket.write(authReply(0, DIGEST, Buffer.alloc(0)));
      return true;
    }
    if (verdict === 'stale') {
      socket.write(authReply(1, DIGEST, lengthPrefixed(digest.account.realm, digest.issueNonce(), 'auth')));
      continue;
    }
    state.redirection.counters.signInFailures++;
    socket.write(authReply(1, DIGEST, Buffer.alloc(0)));
    return false;
  }
  return false;
}
