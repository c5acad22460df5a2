/**
 * Accepts one CIRA connection: Node's TLS does the handshake (certificates, key exchange, version
 * and suite negotiation), then, for TLS 1.2 with an AEAD suite, the record layer is taken over by
 * `RecordSocket` and the TLS socket is released. Any other outcome (TLS 1.0/1.1 for old firmware,
 * TLS 1.3, a suite not in AEAD_SUITES, key material not seen) keeps the Node TLS socket.
 */
import type { Socket } from 'node:net';
import { TLSSocket, type SecureContext } from 'node:tls';
import { AeadRecordCipher } from './aead-record-cipher.js';
import { HandshakeDuplex } from './handshake-duplex.js';
import { RecordSocket } from './record-socket.js';
import { AEAD_SUITES, deriveKeyBlock } from './tls12-key-block.js';

/** What a tunnel needs of its connection; both a Node TLSSocket and a RecordSocket offer it. */
export interface TunnelSocket {
  readonly destroyed: boolean;
  readonly writableLength: number;
  write(data: Buffer): boolean;
  end(): unknown;
  end(data: Buffer): unknown;
  destroy(): void;
  pause(): void;
  resume(): void;
  on(event: 'data', listener: (chunk: Buffer) => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
  on(event: 'close', listener: () => void): this;
}

export interface TlsAcceptOptions {
  secureContext: SecureContext;
  handshakeTimeoutMs: number;
  /** The handshake is done; `offloaded` tells which record layer the socket uses. */
  accepted(socket: TunnelSocket, offloaded: boolean): void;
  failed(error: Error, raw: Socket): void;
}

const CLIENT_RANDOM = /^CLIENT_RANDOM ([0-9a-f]{64}) ([0-9a-f]{96})\s*$/i;
/** Records the device protected before the take-over: its Finished. */
const CLIENT_PROTECTED_RECORDS = 1;

export function acceptTls(raw: Socket, options: TlsAcceptOptions): void {
  let clientRandom: Buffer | null = null;
  let masterSecret: Buffer | null = null;
  let secure = false;
  let settled = false;
  const duplex = new HandshakeDuplex(raw, () => settle());
  const tls = new TLSSocket(duplex, { isServer: true, secureContext: options.secureContext, requestCert: false });
  const timer = setTimeout(() => tls.destroy(new Error(`TLS handshake not finished within ${options.handshakeTimeoutMs} ms`)), options.handshakeTimeoutMs);

  tls.on('keylog', (line: Buffer) => {
    const match = CLIENT_RANDOM.exec(line.toString('latin1'));
    if (!match) return;
    clientRandom = Buffer.from(match[1]!, 'hex');
    masterSecret = Buffer.from(match[2]!, 'hex');
  });
  tls.once('secure', () => {
    secure = true;
    settle();
  });
  tls.once('close', () => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
  });
  tls.on('error', (err: Error) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    options.failed(err, raw);
    raw.destroy();
  });

  function settle(): void {
    if (settled || !secure) return;
    const suite = tls.getProtocol() === 'TLSv1.2' ? AEAD_SUITES.get(tls.getCipher().standardName) : undefined;
    if (!suite || !clientRandom || !masterSecret || !duplex.serverRandom) {
      settled = true;
      clearTimeout(timer);
      duplex.passThrough();
      return options.accepted(tls, false);
    }
    if (!duplex.clientFinishedFed || !duplex.serverFinishedSent) return;
    settled = true;
    clearTimeout(timer);
    const keys = deriveKeyBlock(suite, masterSecret, clientRandom, duplex.serverRandom);
    masterSecret.fill(0);
    const early = duplex.detach();
    tls.on('error', () => undefined);
    tls.destroy();
    const reading = new AeadRecordCipher(suite, keys.client.key, keys.client.iv, CLIENT_PROTECTED_RECORDS);
    const writing = new AeadRecordCipher(suite, keys.server.key, keys.server.iv, duplex.serverProtectedRecords);
    options.accepted(new RecordSocket(raw, reading, writing, early), true);
  }
}
