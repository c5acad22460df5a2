/**
 * The CIRA listener's certificate and key: from the configured PEM files, else a self-signed pair
 * generated once into `<dataDir>/cira/` (key owner-only) and reused at later starts, so that
 * provisioned devices keep trusting it.
 */
import { X509Certificate } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generate } from 'selfsigned';

export interface ServerCertificate {
  cert: string;
  key: string;
  /** SHA-256 of the certificate's DER bytes, lower-case hex. */
  sha256: string;
}

const CERT_FILE = 'server.cert.pem';
const KEY_FILE = 'server.key.pem';
/** RSA 2048 / SHA-256: what every AMT firmware generation accepts. */
const VALIDITY_YEARS = 10;

const sha256Of = (pem: string) => new X509Certificate(pem).fingerprint256.replace(/:/g, '').toLowerCase();

async function readPair(certFile: string, keyFile: string): Promise<ServerCertificate> {
  const [cert, key] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
  return { cert, key, sha256: sha256Of(cert) };
}

async function generatePair(dir: string, commonName: string): Promise<ServerCertificate> {
  const now = new Date();
  const notAfterDate = new Date(now);
  notAfterDate.setUTCFullYear(now.getUTCFullYear() + VALIDITY_YEARS);
  const pems = await generate([{ name: 'commonName', value: commonName }], {
    keyType: 'rsa',
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: commonName }] },
    ],
  });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // A half-written pair (a crash between the two writes) is replaced whole; the key stays owner-only.
  await writeFile(join(dir, KEY_FILE), pems.private, { mode: 0o600 });
  await chmod(join(dir, KEY_FILE), 0o600);
  await writeFile(join(dir, CERT_FILE), pems.cert, { mode: 0o644 });
  return { cert: pems.cert, key: pems.private, sha256: sha256Of(pems.cert) };
}

/** Loads the configured pair, or the generated one in `dataDir/cira`, generating it on first start. */
export async function loadServerCertificate(tls: { cert: string | null; key: string | null }, dataDir: string, commonName = 'amt-gateway-cira'): Promise<ServerCertificate> {
  if (tls.cert && tls.key) return readPair(tls.cert, tls.key);
  if (tls.cert || tls.key) throw new Error('plugins.cira.options.tls: give both cert and key, or neither');
  const dir = join(dataDir, 'cira');
  try {
    return await readPair(join(dir, CERT_FILE), join(dir, KEY_FILE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return generatePair(dir, commonName);
}
