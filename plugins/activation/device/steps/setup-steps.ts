/**
 * Reading the firmware before activation and the activation calls themselves: `Setup` (client
 * control mode), the provisioning chain and `AdminSetup` (admin control mode), the MEBx password.
 */
import { createHash } from 'node:crypto';
import { intOf, textOf, textsOf } from '../../../../workers/amt/wsman-parse.js';
import { ActivationErrors } from '../../errors.js';
import { xmlSafe, type FirmwareCalls } from '../firmware-calls.js';

/** `NetAdminPassEncryptionType` 2: the password travels as HTTP Digest's A1 hash, MD5(`admin:realm:password`), hex. */
export const DIGEST_MD5_A1 = 2;
/** `SigningAlgorithm` 2: RSA with SHA-256 (firmware takes nothing stronger for AdminSetup). */
export const RSA_SHA256 = 2;
/** The AMT account activation creates; its password is the profile's. */
export const ADMIN_USER = 'admin';

/** The A1 hash AMT stores for `admin`: what Setup, AdminSetup and SetAdminAclEntryEx take instead of the password. */
export function adminPasswordHash(realm: string, password: string): string {
  return createHash('md5').update(`${ADMIN_USER}:${realm}:${password}`, 'utf8').digest('hex');
}

export interface GeneralFacts {
  /** `Digest:` and 32 hex digits: the realm the password hash is made for. */
  realm: string;
  hostname: string;
  domain: string;
}

/** `AMT_GeneralSettings`: the Digest realm (for the password hash), the firmware's host and domain names. */
export async function readGeneralSettings(calls: FirmwareCalls): Promise<GeneralFacts> {
  const item = await calls.get(calls.amt.GeneralSettings.Get(), 'AMT_GeneralSettings');
  const realm = textOf(item.properties['DigestRealm']) ?? '';
  // RPS checks the same shape: a realm that is not AMT's makes a hash the firmware will not match.
  if (!/^Digest:[0-9A-Fa-f]{32}$/.test(realm)) throw ActivationErrors.wrongState('the firmware reports no valid Digest realm');
  return { realm, hostname: textOf(item.properties['HostName']) ?? '', domain: textOf(item.properties['DomainName']) ?? '' };
}

export interface HostBasedSetup {
  /** `ConfigurationNonce`: the firmware's half of what AdminSetup signs. */
  firmwareNonce: Buffer;
  /** `AllowedControlModes`: 1 client, 2 admin. */
  allowedModes: number[];
  /** `CurrentControlMode`: 0 none, 1 client, 2 admin. */
  currentMode: number | null;
}

/** `IPS_HostBasedSetupService`: the firmware's nonce, the modes it allows, the mode it is in. */
export async function readHostBasedSetup(calls: FirmwareCalls): Promise<HostBasedSetup> {
  const item = await calls.get(calls.ips.HostBasedSetupService.Get(), 'IPS_HostBasedSetupService');
  return {
    firmwareNonce: Buffer.from(textOf(item.properties['ConfigurationNonce']) ?? '', 'base64'),
    allowedModes: textsOf(item.properties['AllowedControlModes']).map(Number),
    currentMode: intOf(item.properties['CurrentControlMode']),
  };
}

/** Client control mode: `Setup` with the admin password's hash. */
export async function clientSetup(calls: FirmwareCalls, passwordHash: string): Promise<void> {
  await calls.invokeOk(calls.ips.HostBasedSetupService.Setup(DIGEST_MD5_A1, xmlSafe(passwordHash)), 'Setup', 'IPS_HostBasedSetupService.Setup');
}

/** The provisioning chain, leaf first and root last, as base64 DER: each certificate one `AddNextCertInChain`. */
export async function addCertificateChain(calls: FirmwareCalls, chain: readonly string[]): Promise<void> {
  for (let i = 0; i < chain.length; i++) {
    const xml = calls.ips.HostBasedSetupService.AddNextCertInChain(xmlSafe(chain[i]!), i === 0, i === chain.length - 1);
    await calls.invokeOk(xml, 'AddNextCertInChain', `IPS_HostBasedSetupService.AddNextCertInChain (certificate ${i + 1} of ${chain.length})`);
  }
}

export interface AdminSetupInput {
  passwordHash: string;
  /** Our 20 random bytes. */
  ourNonce: Buffer;
  /** RSA-SHA256 over the firmware's nonce then ours, with the provisioning certificate's key, base64. */
  signature: string;
}

/** Admin control mode: `AdminSetup`, once (firmware may stop answering when it is retried). */
export async function adminSetup(calls: FirmwareCalls, input: AdminSetupInput): Promise<void> {
  const xml = calls.ips.HostBasedSetupService.AdminSetup(DIGEST_MD5_A1, xmlSafe(input.passwordHash), input.ourNonce.toString('base64'), RSA_SHA256, xmlSafe(input.signature));
  await calls.invokeOk(xml, 'AdminSetup', 'IPS_HostBasedSetupService.AdminSetup');
}

/** The MEBx (BIOS extension) password, admin control mode only. */
export async function setMebxPassword(calls: FirmwareCalls, password: string): Promise<void> {
  await calls.invokeOk(calls.amt.SetupAndConfigurationService.SetMEBXPassword(xmlSafe(password)), 'SetMEBxPassword', 'AMT_SetupAndConfigurationService.SetMEBxPassword');
}
