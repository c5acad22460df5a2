/** A throw-away self-signed certificate for 127.0.0.1, made with the openssl CLI. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function makeTestCertificate(commonName = '127.0.0.1'): { certFile: string; keyFile: string; certPem: string } {
  const dir = mkdtempSync(join(tmpdir(), 'amtgw-cert-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', `/CN=${commonName}`, '-addext', `subjectAltName=IP:${commonName}`, '-keyout', keyFile, '-out', certFile], { stdio: 'ignore' });
  return { certFile, keyFile, certPem: readFileSync(certFile, 'utf8') };
}
