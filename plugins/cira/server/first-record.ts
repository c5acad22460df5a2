/**
 * Judges the first bytes of a connection to the TLS listener before OpenSSL sees them, so that a
 * peer speaking anything else is refused at once instead of holding a socket until the handshake
 * limit. A TLS client opens with a handshake record (type 22, version major 3); very old clients
 * open with an SSLv2-format ClientHello (high bit of the first byte set, message type 1), which
 * OpenSSL accepts for TLS 1.0-1.2 and which only the legacy mode for old firmware lets through.
 */
export type FirstRecordVerdict = { kind: 'need-more' } | { kind: 'tls' } | { kind: 'refused'; reason: string };

const HANDSHAKE_RECORD = 22;
const TLS_VERSION_MAJOR = 3;
const SSLV2_LENGTH_BIT = 0x80;
const SSLV2_CLIENT_HELLO = 1;

export function judgeFirstRecord(bytes: Buffer, allowSslv2Hello: boolean): FirstRecordVerdict {
  if (bytes.length === 0) return { kind: 'need-more' };
  const first = bytes[0]!;
  if (first === HANDSHAKE_RECORD) {
    if (bytes.length < 2) return { kind: 'need-more' };
    if (bytes[1] === TLS_VERSION_MAJOR) return { kind: 'tls' };
    return { kind: 'refused', reason: `handshake record of protocol version ${bytes[1]}.x` };
  }
  if (allowSslv2Hello && (first & SSLV2_LENGTH_BIT) !== 0) {
    if (bytes.length < 3) return { kind: 'need-more' };
    if (bytes[2] === SSLV2_CLIENT_HELLO) return { kind: 'tls' };
    return { kind: 'refused', reason: `SSLv2-format message of type ${bytes[2]}, not a ClientHello` };
  }
  return { kind: 'refused', reason: `first byte 0x${first.toString(16).padStart(2, '0')} does not open a TLS handshake` };
}
