/**
 * One direction of a TLS 1.2 AEAD record layer: seals or opens record bodies with the write key of
 * that direction and its sequence number (RFC 5246 section 6.2.3.3, RFC 5288, RFC 7905).
 */
import { createCipheriv, createDecipheriv, type CipherGCMTypes, type KeyObject } from 'node:crypto';
import type { AeadSuite } from './tls12-key-block.js';
import { TLS12 } from './tls-records.js';

const TAG_BYTES = 16;
const EXPLICIT_NONCE_BYTES = 8;
/** Sequence numbers are kept as a JS number: 2^53 records is far beyond any tunnel's life. */
const MAX_SEQUENCE = Number.MAX_SAFE_INTEGER;

export class RecordAuthError extends Error {
  constructor(reason: string) {
    super(`TLS record rejected: ${reason}`);
  }
}

export class AeadRecordCipher {
  private sequence: number;
  private readonly explicitNonce: boolean;
  /** Scratch for the 13-byte additional data: sequence number, type, version, length. */
  private readonly aad = Buffer.alloc(13);

  constructor(
    private readonly suite: AeadSuite,
    private readonly key: KeyObject,
    private readonly iv: Buffer,
    /** Records of this direction already protected under these keys (the handshake's Finished). */
    firstSequence: number,
  ) {
    this.sequence = firstSequence;
    this.explicitNonce = suite.ivBytes === 4;
  }

  /** Protects `plaintext` (at most 2^14 bytes) as the body of a record of `type`. */
  seal(type: number, plaintext: Buffer): Buffer {
    const sequence = this.next();
    const nonce = this.nonce(sequence);
    // The GCM overload's types serve ChaCha20-Poly1305 too: both give setAAD/getAuthTag with a 16-byte tag.
    const cipher = createCipheriv(this.suite.cipher as CipherGCMTypes, this.key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(this.additionalData(sequence, type, plaintext.length), { plaintextLength: plaintext.length });
    const head = cipher.update(plaintext);
    cipher.final();
    const tag = cipher.getAuthTag();
    return this.explicitNonce ? Buffer.concat([nonce.subarray(4), head, tag]) : Buffer.concat([head, tag]);
  }

  /** Checks and decrypts a record body; throws RecordAuthError when it does not authenticate. */
  open(type: number, body: Buffer): Buffer {
    const overhead = TAG_BYTES + (this.explicitNonce ? EXPLICIT_NONCE_BYTES : 0);
    if (body.length < overhead) throw new RecordAuthError('record shorter than its nonce and tag');
    const sequence = this.next();
    const nonce = this.explicitNonce ? Buffer.concat([this.iv, body.subarray(0, EXPLICIT_NONCE_BYTES)]) : this.nonce(sequence);
    const ciphertext = body.subarray(this.explicitNonce ? EXPLICIT_NONCE_BYTES : 0, body.length - TAG_BYTES);
    const decipher = createDecipheriv(this.suite.cipher as CipherGCMTypes, this.key, nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(this.additionalData(sequence, type, ciphertext.length), { plaintextLength: ciphertext.length });
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    const plaintext = decipher.update(ciphertext);
    try {
      decipher.final();
    } catch {
      throw new RecordAuthError('bad record MAC');
    }
    return plaintext;
  }

  private next(): number {
    if (this.sequence >= MAX_SEQUENCE) throw new RecordAuthError('sequence number exhausted');
    return this.sequence++;
  }

  /** GCM: salt + the sequence number as explicit nonce; ChaCha20: the IV XOR the padded sequence number. */
  private nonce(sequence: number): Buffer {
    const nonce = Buffer.alloc(12);
    if (this.explicitNonce) {
      this.iv.copy(nonce, 0);
      writeSequence(nonce, 4, sequence);
      return nonce;
    }
    writeSequence(nonce, 4, sequence);
    for (let i = 0; i < 12; i++) nonce[i] = nonce[i]! ^ this.iv[i]!;
    return nonce;
  }

  private additionalData(sequence: number, type: number, length: number): Buffer {
    writeSequence(this.aad, 0, sequence);
    this.aad[8] = type;
    this.aad.writeUInt16BE(TLS12, 9);
    this.aad.writeUInt16BE(length, 11);
    return this.aad;
  }
}

function writeSequence(target: Buffer, offset: number, sequence: number): void {
  target.writeUInt32BE(Math.floor(sequence / 0x1_0000_0000), offset);
  target.writeUInt32BE(sequence >>> 0, offset + 4);
}
