/**
 * Test material for admin control mode: a root CA, an intermediate and a provisioning certificate
 * (the AMT provisioning OID in its extended key usage, issued to a name in the site's DNS suffix),
 * packed as the PKCS#12 file a CA hands out. RSA keys from Node's crypto, certificates and PKCS#12 by
 * node-forge. What the firmware checks it checks with Node's X509Certificate, not with node-forge.
 */
import { createHash, generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import forge from 'node-forge';

export interface PkiOptions {
  /** The leaf's common name (default `provision.vprodemo.example`). */
  commonName?: string;
  /** Days the leaf is valid from now (default 365). */
  validDays?: number;
  /** Leave the AMT provisioning OID out of the leaf. */
  withoutProvisioningMark?: boolean;
  /** Leave the root out of the PFX. */
  withoutRoot?: boolean;
  password?: string;
  /** PKCS#12 encryption: `3des` (what Windows exported for years, node-forge's default) or `aes256`. */
  algorithm?: '3des' | 'aes256';
}

export interface Pki {
  pfxBase64: string;
  password: string;
  /** SHA-256 of the root (DER), hex: what the firmware must trust. */
  rootSha256: string;
  leafCommonName: string;
}

const PROVISIONING_OID = '2.16.840.1.113741.1.2.3';

/** Off the event loop (a test's gateway keeps answering meanwhile). */
async function keyPair() {
  const { privateKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
  const key = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }) as string) as forge.pki.rsa.PrivateKey;
  return { key, publicKey: forge.pki.setRsaPublicKey(key.n, key.e) };
}

function certificate(subject: string, issuer: { cn: string; key: forge.pki.rsa.PrivateKey }, publicKey: forge.pki.PublicKey, days: number, extensions: object[], serial: string) {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = serial;
  cert.validity.notBefore = new Date(Date.now() - 3_600_000);
  cert.validity.notAfter = new Date(Date.now() + days * 86_400_000);
  cert.setSubject([{ name: 'commonName', value: subject }]);
  cert.setIssuer([{ name: 'commonName', value: issuer.cn }]);
  cert.setExtensions(extensions);
  cert.sign(issuer.key, forge.md.sha256.create());
  return cert;
}

export async function provisioningPki(options: PkiOptions = {}): Promise<Pki> {
  const password = options.password ?? 'Pfx-P@ssw0rd';
  const leafName = options.commonName ?? 'provision.vprodemo.example';
  const [root, intermediate, leaf] = await Promise.all([keyPair(), keyPair(), keyPair()]);
  const ca = [{ name: 'basicConstraints', cA: true }, { name: 'keyUsage', keyCertSign: true, cRLSign: true }];
  const rootCert = certificate('Test Provisioning Root', { cn: 'Test Provisioning Root', key: root.key }, root.publicKey, 3650, ca, '01');
  const interCert = certificate('Test Provisioning CA', { cn: 'Test Provisioning Root', key: root.key }, intermediate.publicKey, 1825, ca, '02');
  const usage = { name: 'extKeyUsage', serverAuth: true, ...(options.withoutProvisioningMark ? {} : { [PROVISIONING_OID]: true }) };
  const leafCert = certificate(leafName, { cn: 'Test Provisioning CA', key: intermediate.key }, leaf.publicKey, options.validDays ?? 365, [{ name: 'keyUsage', digitalSignature: true, keyEncipherment: true }, usage], '03');
  const chain = options.withoutRoot ? [leafCert, interCert] : [leafCert, interCert, rootCert];
  const asn1 = forge.pkcs12.toPkcs12Asn1(leaf.key, chain, password, { algorithm: options.algorithm ?? '3des' });
  const rootDer = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(rootCert)).getBytes(), 'binary');
  return {
    pfxBase64: Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary').toString('base64'),
    password,
    rootSha256: createHash('sha256').update(rootDer).digest('hex'),
    leafCommonName: leafName,
  };
}
