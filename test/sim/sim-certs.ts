/** The simulator's TLS material: two committed self-signed pairs (`a`, `b`) to simulate a changed certificate. */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CertificateName } from './fleet-options.js';

export interface CertificatePair {
  key: string;
  cert: string;
  /** SHA-256 fingerprint, upper-case hex pairs joined by colons. */
  fingerprint256: string;
}

const cache = new Map<CertificateName, CertificatePair>();

/** Loads (once) the key and certificate named `a` or `b` from test/sim/certs. */
export function certificatePair(name: CertificateName): CertificatePair {
  let pair = cache.get(name);
  if (!pair) {
    const dir = fileURLToPath(new URL('./certs/', import.meta.url));
    const cert = readFileSync(`${dir}device-${name}.cert.pem`, 'utf8');
    const key = readFileSync(`${dir}device-${name}.key.pem`, 'utf8');
    pair = { key, cert, fingerprint256: new X509Certificate(cert).fingerprint256 };
    cache.set(name, pair);
  }
  return pair;
}

