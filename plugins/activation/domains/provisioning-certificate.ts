/**
 * A provisioning certificate as admin control mode uses it: read from the PKCS#12 (PFX) file an
 * operator uploads (node-forge reads PKCS#12, including the 3DES and RC2 bags Windows exports, which
 * Node's crypto cannot; loaded only when a PFX is read), the chain put in order leaf to root, the key
 * kept as a Node key object for signing.
 */
import { createHash, createPrivateKey, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { ActivationErrors } from '../errors.js';

/** The OID firmware looks for in a provisioning certificate's extended key usage. */
export const AMT_PROVISIONING_OID = '2.16.840.1.113741.1.2.3';
/** The other mark firmware accepts: this organizational unit in the subject. */
export const AMT_PROVISIONING_OU = 'Intel(R) Client Setup Certificate';

export interface ProvisioningCertificate {
  /** Leaf first, root last. */
  chain: X509Certificate[];
  key: KeyObject;
  /** The leaf's common name (its domain is what the firmware matches the DNS suffix against). */
  commonName: string;
  /** Hashes of the root (DER), hex lower case: what the firmware's trusted hashes are compared with. */
  rootHashes: { sha1: string; sha256: string; sha384: string };
}

type Forge = typeof import('node-forge');
let forge: Promise<Forge> | undefined;
const loadForge = () => (forge ??= import('node-forge').then((m) => ((m as { default?: Forge }).default ?? m) as Forge));

const commonNameOf = (certificate: X509Certificate) => /(?:^|\n)CN=([^\n]*)/.exec(certificate.subject)?.[1] ?? '';
const hash = (algorithm: string, der: Buffer) => createHash(algorithm).update(der).digest('hex');

/** Puts certificates in order from the one `key` belongs to up to its self-signed root; throws when the chain breaks. */
function orderChain(certificates: X509Certificate[], key: KeyObject): X509Certificate[] {
  const leaf = certificates.find((c) => c.checkPrivateKey(key));
  if (!leaf) throw ActivationErrors.certificateUnreadable('no certificate in it belongs to its private key');
  const chain = [leaf];
  for (let current = leaf; !current.checkIssued(current); ) {
    const issuer = certificates.find((c) => c !== current && current.checkIssued(c) && current.verify(c.publicKey));
    if (!issuer) throw ActivationErrors.certificateUnreadable(`the chain stops at '${current.issuer.replace(/\n/g, ', ')}': the PFX must hold every certificate up to the root`);
    if (chain.includes(issuer)) throw ActivationErrors.certificateUnreadable('the chain loops');
    chain.push(issuer);
    current = issuer;
  }
  return chain;
}

/** Whether the leaf carries either mark of an AMT provisioning certificate. */
export function isProvisioningCertificate(leaf: X509Certificate): boolean {
  return (leaf.keyUsage ?? []).includes(AMT_PROVISIONING_OID) || leaf.subject.split('\n').includes(`OU=${AMT_PROVISIONING_OU}`);
}

/** Reads a PFX. @throws 422 `GW_ERR_ACTIVATION_CERTIFICATE_UNREADABLE` saying why (a wrong password, no key, a broken chain, no provisioning mark) */
export async function readProvisioningCertificate(pfxBase64: string, password: string): Promise<ProvisioningCertificate> {
  const { asn1, pkcs12, pki, util } = await loadForge();
  let bags: { certificates: Buffer[]; keyPem: string | null };
  try {
    const p12 = pkcs12.pkcs12FromAsn1(asn1.fromDer(util.decode64(pfxBase64.replace(/\s+/g, ''))), false, password);
    const certificates = (p12.getBags({ bagType: pki.oids.certBag! })[pki.oids.certBag!] ?? []).flatMap((bag) => (bag.cert ? [Buffer.from(asn1.toDer(pki.certificateToAsn1(bag.cert)).getBytes(), 'binary')] : []));
    const keyBag = [...(p12.getBags({ bagType: pki.oids.pkcs8ShroudedKeyBag! })[pki.oids.pkcs8ShroudedKeyBag!] ?? []), ...(p12.getBags({ bagType: pki.oids.keyBag! })[pki.oids.keyBag!] ?? [])].find((bag) => bag.key);
    bags = { certificates, keyPem: keyBag?.key ? pki.privateKeyToPem(keyBag.key) : null };
  } catch (error) {
    const text = error instanceof Error ? error.message : '';
    throw ActivationErrors.certificateUnreadable(/password|mac/i.test(text) ? 'the password does not open it' : 'it is not a PKCS#12 (PFX) file node-forge can read (RSA keys, PBES2 or legacy 3DES/RC2 encryption)');
  }
  if (!bags.keyPem) throw ActivationErrors.certificateUnreadable('it holds no private key');
  const key = createPrivateKey(bags.keyPem);
  if (key.asymmetricKeyType !== 'rsa') throw ActivationErrors.certificateUnreadable('its key is not RSA (firmware signs and checks RSA only)');
  const chain = orderChain(bags.certificates.map((der) => new X509Certificate(der)), key);
  const leaf = chain[0]!;
  if (!isProvisioningCertificate(leaf)) throw ActivationErrors.certificateUnreadable(`the leaf is not an AMT provisioning certificate (extended key usage ${AMT_PROVISIONING_OID} or OU "${AMT_PROVISIONING_OU}")`);
  const root = chain[chain.length - 1]!.raw;
  return { chain, key, commonName: commonNameOf(leaf), rootHashes: { sha1: hash('sha1', root), sha256: hash('sha256', root), sha384: hash('sha384', root) } };
}

/** Whether a DNS suffix is the certificate's domain or under it (what firmware checks against the leaf's name). */
export function suffixMatches(commonName: string, suffix: string): boolean {
  const name = commonName.toLowerCase();
  const wanted = suffix.toLowerCase();
  return name === wanted || name.endsWith(`.${wanted}`) || wanted.endsWith(`.${name}`);
}

/** Whether the firmware trusts the chain's root: one of its hashes (SHA-1, SHA-256 or SHA-384, by length) is the root's. */
export function rootTrusted(certificate: ProvisioningCertificate, firmwareHashes: readonly string[]): boolean {
  const { sha1, sha256, sha384 } = certificate.rootHashes;
  return firmwareHashes.some((h) => h === sha1 || h === sha256 || h === sha384);
}

/** What AdminSetup carries: RSA-SHA256 over the firmware's nonce then ours, base64. */
export function signNonces(certificate: ProvisioningCertificate, firmwareNonce: Buffer, ourNonce: Buffer): string {
  return sign('sha256', Buffer.concat([firmwareNonce, ourNonce]), certificate.key).toString('base64');
}

/** The chain as AddNextCertInChain takes it: base64 DER, leaf first. */
export function chainForFirmware(certificate: ProvisioningCertificate): string[] {
  return certificate.chain.map((c) => c.raw.toString('base64'));
}
