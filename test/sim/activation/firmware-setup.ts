/**
 * Activation as the firmware validates it: `Setup` and `AdminSetup` only from the local account in
 * pre-provisioning, the password as a 32-digit A1 hash, the provisioning chain leaf first to a root
 * whose hash it trusts, with the AMT provisioning mark and a name within its DNS suffix, each
 * certificate signed by the next, and AdminSetup's signature over its nonce and the caller's checked
 * with the leaf's key. Then the admin account, the MEBx password, unprovisioning and the clock.
 */
import { createHash, verify, X509Certificate } from 'node:crypto';
import { intOf } from './firmware-text.js';
import { refused, returned, type FirmwareCall } from './firmware-calls.js';
import { ADMIN_USER, type FirmwareState } from './firmware-state.js';

const HOST_BASED_SETUP = 'IPS_HostBasedSetupService';
const PROVISIONING_OID = '2.16.840.1.113741.1.2.3';
const PROVISIONING_OU = 'OU=Intel(R) Client Setup Certificate';
const A1 = /^[0-9a-fA-F]{32}$/;
const AMT_PASSWORD = /^(?=.*[a-z])(?=.*[A-Z])(?=.*[0-9])(?=.*[^A-Za-z0-9]).{8,32}$/;

function hostBasedSetup(fw: FirmwareState) {
  return {
    className: HOST_BASED_SETUP,
    props: [
      ['AllowedControlModes', fw.controlMode === 0 ? [2, 1] : []],
      ['CertChainStatus', fw.chainComplete ? 2 : fw.chain.length > 0 ? 1 : 0],
      ['ConfigurationNonce', fw.configurationNonce.toString('base64')],
      ['CreationClassName', HOST_BASED_SETUP],
      ['CurrentControlMode', fw.controlMode],
      ['ElementName', 'Intel(r) AMT Host Based Setup Service'],
      ['Name', 'Intel(r) AMT Host Based Setup Service'],
      ['SystemCreationClassName', 'CIM_ComputerSystem'],
      ['SystemName', 'Intel(r) AMT'],
    ] as const,
  };
}

const commonName = (c: X509Certificate) => /(?:^|\n)CN=([^\n]*)/.exec(c.subject)?.[1]?.toLowerCase() ?? '';

/** The password as Setup and AdminSetup take it: encryption type 2, the A1 hash. */
function adminHash(fw: FirmwareState, type: string | undefined, hash: string | undefined): string | null {
  if (intOf(type) !== 2) return (fw.refuse('NetAdminPassEncryptionType is not 2 (HTTP Digest MD5 A1)'), null);
  if (!hash || !A1.test(hash)) return (fw.refuse('NetworkAdminPassword is not an A1 hash (32 hex digits)'), null);
  return hash;
}

function activated(fw: FirmwareState, mode: 1 | 2, a1: string): void {
  fw.digest.setAccount(ADMIN_USER, { a1 });
  fw.setControlMode(mode);
}

export const HOST_BASED_SETUP_CALLS: Record<string, FirmwareCall> = {
  Get: { who: 'any', run: (fw) => ({ instance: hostBasedSetup(fw) }) },
  Setup: {
    who: 'local',
    run(fw, input) {
      if (fw.controlMode !== 0) return refused(fw, 'Setup outside pre-provisioning');
      const hash = adminHash(fw, input.text('NetAdminPassEncryptionType'), input.text('NetworkAdminPassword'));
      if (!hash) return returned(1);
      activated(fw, 1, hash);
      return returned(0);
    },
  },
  AddNextCertInChain: {
    who: 'local',
    run(fw, input) {
      if (fw.controlMode !== 0) return refused(fw, 'AddNextCertInChain outside pre-provisioning');
      let certificate: X509Certificate;
      try {
        certificate = new X509Certificate(Buffer.from(input.text('NextCertificate') ?? '', 'base64'));
      } catch {
        return refused(fw, 'NextCertificate is not a certificate (base64 DER)');
      }
      const leaf = input.text('IsLeafCertificate') === 'true';
      const root = input.text('IsRootCertificate') === 'true';
      if (leaf) {
        fw.chain = [];
        fw.chainComplete = false;
      } else if (fw.chain.length === 0 || fw.chainComplete) return refused(fw, 'the chain must start with its leaf');
      const previous = fw.chain[fw.chain.length - 1];
      if (previous && !(previous.checkIssued(certificate) && previous.verify(certificate.publicKey))) return refused(fw, 'a certificate is not signed by the next one');
      if (leaf && !((certificate.keyUsage ?? []).includes(PROVISIONING_OID) || certificate.subject.split('\n').includes(PROVISIONING_OU))) return refused(fw, 'the leaf has no AMT provisioning mark');
      if (leaf) {
        const name = commonName(certificate);
        const suffix = fw.options.dnsSuffix.toLowerCase();
        if (!suffix || !(name === suffix || name.endsWith(`.${suffix}`) || suffix.endsWith(`.${name}`))) return refused(fw, `the leaf is issued to ${name}, not within the DNS suffix ${suffix || '(none)'}`);
      }
      fw.chain.push(certificate);
      if (root) {
        if (!(certificate.checkIssued(certificate) && certificate.verify(certificate.publicKey))) return refused(fw, 'the root is not self-signed');
        const hashes = ['sha1', 'sha256', 'sha384'].map((algorithm) => createHash(algorithm).update(certificate.raw).digest('hex'));
        if (!fw.options.trustedRootHashes.some((h) => hashes.includes(h.toLowerCase()))) return refused(fw, 'the root is not one the firmware trusts');
        fw.chainComplete = true;
      }
      return returned(0);
    },
  },
  AdminSetup: {
    who: 'local',
    run(fw, input) {
      if (fw.controlMode !== 0) return refused(fw, 'AdminSetup outside pre-provisioning');
      if (!fw.chainComplete) return refused(fw, 'AdminSetup before the chain reached a trusted root');
      const hash = adminHash(fw, input.text('NetAdminPassEncryptionType'), input.text('NetworkAdminPassword'));
      if (!hash) return returned(1);
      if (intOf(input.text('SigningAlgorithm')) !== 2) return refused(fw, 'SigningAlgorithm is not 2 (RSA SHA-256)');
      const ourNonce = Buffer.from(input.text('McNonce') ?? '', 'base64');
      if (ourNonce.length !== 20) return refused(fw, 'McNonce is not 20 bytes');
      const signature = Buffer.from(input.text('DigitalSignature') ?? '', 'base64');
      const signed = Buffer.concat([fw.configurationNonce, ourNonce]);
      if (!verify('sha256', signed, fw.chain[0]!.publicKey, signature)) return refused(fw, 'the signature does not verify with the leaf certificate over the nonces');
      activated(fw, 2, hash);
      fw.configurationNonce = Buffer.alloc(20, 0);
      return returned(0);
    },
  },
};

export const SETUP_AND_CONFIGURATION_CALLS: Record<string, FirmwareCall> = {
  SetMEBxPassword: {
    who: 'admin',
    run(fw, input) {
      if (fw.controlMode !== 2) return refused(fw, 'SetMEBxPassword outside admin control mode');
      const password = input.text('Password') ?? '';
      if (!AMT_PASSWORD.test(password)) return refused(fw, 'the MEBx password does not meet the firmware\'s rules');
      fw.mebxPassword = password;
      return returned(0);
    },
  },
  Unprovision: {
    who: 'admin',
    run(fw, input) {
      if (fw.controlMode === 0) return refused(fw, 'Unprovision in pre-provisioning');
      if (intOf(input.text('ProvisioningMode')) !== 1) return refused(fw, 'ProvisioningMode is not 1');
      fw.unprovision();
      return returned(0);
    },
  },
  CommitChanges: { who: 'admin', run: () => returned(0) },
};

export const AUTHORIZATION_CALLS: Record<string, FirmwareCall> = {
  SetAdminAclEntryEx: {
    who: 'admin',
    run(fw, input) {
      const digest = Buffer.from(input.text('DigestPassword') ?? '', 'base64');
      if (input.text('Username') !== ADMIN_USER) return refused(fw, 'SetAdminAclEntryEx for another user than admin');
      if (digest.length !== 16) return refused(fw, 'DigestPassword is not 16 bytes (the A1 hash)');
      fw.digest.setAccount(ADMIN_USER, { a1: digest.toString('hex') });
      return returned(0);
    },
  },
};

export const TIME_CALLS: Record<string, FirmwareCall> = {
  GetLowAccuracyTimeSynch: {
    who: 'admin',
    run(fw) {
      fw.lastTa0 = fw.now();
      return returned(0, ['Ta0', fw.lastTa0]);
    },
  },
  SetHighAccuracyTimeSynch: {
    who: 'admin',
    run(fw, input) {
      const [ta0, tm1, tm2] = ['Ta0', 'Tm1', 'Tm2'].map((name) => intOf(input.text(name)));
      if (ta0 === null || tm1 === null || tm2 === null || ta0 !== fw.lastTa0 || tm2 < tm1) return refused(fw, 'SetHighAccuracyTimeSynch without the Ta0 just read, or Tm2 before Tm1');
      // The host's time now is Tm2 plus what passed since; the firmware takes it.
      fw.clockOffsetSeconds = tm2 - Math.round(Date.now() / 1000);
      fw.lastTa0 = null;
      return returned(0);
    },
  },
};
