/**
 * What makes an activated device dial in to this gateway (CIRA): our CIRA certificate as a trusted
 * root, an MPS server entry with a generated account, periodic and user-initiated remote-access
 * rules, the user-initiated connection service on, and environment detection that never finds the
 * device "inside" (so it always uses its MPS).
 */
import { objectOf, textOf, textsOf, type WsmanObject } from '../../../../workers/amt/wsman-parse.js';
import { ActivationErrors } from '../../errors.js';
import { xmlSafe, type FirmwareCalls } from '../firmware-calls.js';

/** `InfoFormat` of an MPS address: IPv4 3, IPv6 4, FQDN 201. */
export type MpsAddressFormat = 3 | 4 | 201;

export interface CiraSetup {
  /** The CIRA server certificate (its own root when self-signed) as base64 DER. */
  rootCertificate: string;
  server: { address: string; format: MpsAddressFormat; port: number; commonName: string };
  account: { username: string; password: string };
  /** Seconds between periodic connections while the device has no tunnel. */
  periodicSeconds: number;
  /** A DNS suffix no network has: the device never decides it is inside and always dials. */
  detectionDomain: string;
}

/** `Trigger`: 0 user-initiated, 1 alert, 2 periodic. */
const TRIGGER = { userInitiated: 0, periodic: 2 } as const;
/** `AMT_UserInitiatedConnectionService` 32771: user-initiated connections from BIOS and OS allowed. */
const USER_INITIATED_ALL = 32771;
/** How long a tunnel a user asked for stays up (seconds), as RPS sets it. */
const USER_TUNNEL_LIFETIME = 300;

/** Periodic rule data: interval-based (0), then the interval in seconds, each 4 bytes big-endian. */
export function periodicData(seconds: number): string {
  const data = Buffer.alloc(8);
  data.writeUInt32BE(seconds, 4);
  return data.toString('base64');
}

/** The `Name` selector of the endpoint reference `AddMpServer` answers with. */
function serverName(output: WsmanObject): string {
  const reference = objectOf(objectOf(output['MpServer'])?.['ReferenceParameters']);
  const selectors = objectOf(reference?.['SelectorSet'])?.['Selector'];
  for (const selector of Array.isArray(selectors) ? selectors : selectors ? [selectors] : []) {
    const node = objectOf(selector);
    if (node?.['@Name'] === 'Name') return textOf(node) ?? '';
  }
  return '';
}

export async function setupCira(calls: FirmwareCalls, setup: CiraSetup): Promise<void> {
  const { amt } = calls;
  await calls.invokeOk(amt.PublicKeyManagementService.AddTrustedRootCertificate({ CertificateBlob: xmlSafe(setup.rootCertificate) }), 'AddTrustedRootCertificate', 'AMT_PublicKeyManagementService.AddTrustedRootCertificate');
  const server = await calls.invokeOk(
    amt.RemoteAccessService.AddMPS({
      AccessInfo: xmlSafe(setup.server.address),
      InfoFormat: setup.server.format,
      Port: setup.server.port,
      AuthMethod: 2,
      Username: xmlSafe(setup.account.username),
      Password: xmlSafe(setup.account.password),
      CommonName: xmlSafe(setup.server.commonName),
    } as never),
    'AddMpServer',
    'AMT_RemoteAccessService.AddMpServer',
  );
  // The entry's name comes back with it: no enumeration of the MPS entries is needed to find it.
  const name = serverName(server.properties);
  if (!name) throw ActivationErrors.firmwareRefused('AMT_RemoteAccessService.AddMpServer (no MpServer reference)', server.returnValue);
  const selector = { name: 'Name', value: xmlSafe(name) };
  await calls.invokeOk(amt.RemoteAccessService.AddRemoteAccessPolicyRule({ Trigger: TRIGGER.periodic, TunnelLifeTime: 0, ExtendedData: periodicData(setup.periodicSeconds) } as never, selector), 'AddRemoteAccessPolicyRule', 'AMT_RemoteAccessService.AddRemoteAccessPolicyRule (periodic)');
  await calls.invokeOk(amt.RemoteAccessService.AddRemoteAccessPolicyRule({ Trigger: TRIGGER.userInitiated, TunnelLifeTime: USER_TUNNEL_LIFETIME, ExtendedData: '' } as never, selector), 'AddRemoteAccessPolicyRule', 'AMT_RemoteAccessService.AddRemoteAccessPolicyRule (user-initiated)');
  await calls.invokeOk(amt.UserInitiatedConnectionService.RequestStateChange(USER_INITIATED_ALL as never), 'RequestStateChange', 'AMT_UserInitiatedConnectionService.RequestStateChange');
  const detection = await calls.get(amt.EnvironmentDetectionSettingData.Get(), 'AMT_EnvironmentDetectionSettingData');
  const strings = textsOf(detection.properties['DetectionStrings']);
  if (strings.length !== 1 || strings[0] !== setup.detectionDomain) {
    await calls.put(
      amt.EnvironmentDetectionSettingData.Put({
        ElementName: xmlSafe(textOf(detection.properties['ElementName']) ?? 'Intel(r) AMT Environment Detection Settings'),
        InstanceID: xmlSafe(textOf(detection.properties['InstanceID']) ?? 'Intel(r) AMT Environment Detection Settings'),
        DetectionAlgorithm: 0,
        DetectionStrings: [xmlSafe(setup.detectionDomain)],
      } as never),
      'AMT_EnvironmentDetectionSettingData',
    );
  }
}
