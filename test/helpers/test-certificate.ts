/** A throw-away self-signed certificate for 127.0.0.1 (EC P-256, `selfsigned`), in a temp directory removed at exit. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';

export async function makeTestCertificate(commonName = '127.0.0.1'): Promise<{ certFile: string; keyFile: string; certPem: string }> {
  const pems = await generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(Date.now() - 60_000),
    notAfterDate: new Date(Date.now() + 2 * 86_400_000),
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: commonName }] }],
  });
  const dir = mkdtempSync(join(tmpdir(), 'amtgw-cert-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  writeFileSync(certFile, pems.cert);
  writeFileSync(keyFile, pems.private, { mode: 0o600 });
  return { certFile, keyFile, certPem: pems.cert };
}
