/**
 * What a server writes so that the firmware dials in (CIRA), checked as firmware checks it: a trusted
 * root that is a certificate, an MPS entry with a usable address, port and user-name-and-password
 * authentication (and a common name for an IP address), rules that name an existing entry, the
 * user-initiated connection service's states, detection strings. All only once activated, as `admin`.
 */
import { X509Certificate } from 'node:crypto';
import { epr, type SimInstance } from '../sim-xml.js';
import { intOf } from './firmware-text.js';
import { refused, returned, type CallAnswer, type FirmwareCall } from './firmware-calls.js';
import type { FirmwareState } from './firmware-state.js';

const MPS_SAP = 'AMT_ManagementPresenceRemoteSAP';
const RULE_NAMES: Record<number, string> = { 0: 'User Initiated', 1: 'Alert', 2: 'Periodic' };

function activatedOnly(fw: FirmwareState, call: string): CallAnswer | null {
  return fw.controlMode === 0 ? refused(fw, `${call} in pre-provisioning`) : null;
}

export const PUBLIC_KEY_CALLS: Record<string, FirmwareCall> = {
  AddTrustedRootCertificate: {
    who: 'admin',
    run(fw, input) {
      const early = activatedOnly(fw, 'AddTrustedRootCertificate');
      if (early) return early;
      let certificate: X509Certificate;
      try {
        certificate = new X509Certificate(Buffer.from(input.text('CertificateBlob') ?? '', 'base64'));
      } catch {
        return refused(fw, 'CertificateBlob is not a certificate (base64 DER)');
      }
      if (fw.cira.trustedRoots.some((c) => c.fingerprint256 === certificate.fingerprint256)) return refused(fw, 'the root is stored already');
      fw.cira.trustedRoots.push(certificate);
      return returned(0, ['CreatedCertificate', epr('AMT_PublicKeyCertificate', { InstanceID: `Intel(r) AMT Certificate: Handle: ${fw.cira.trustedRoots.length}` })]);
    },
  },
};

export const REMOTE_ACCESS_CALLS: Record<string, FirmwareCall> = {
  AddMpServer: {
    who: 'admin',
    run(fw, input) {
      const early = activatedOnly(fw, 'AddMpServer');
      if (early) return early;
      const accessInfo = input.text('AccessInfo') ?? '';
      const format = intOf(input.text('InfoFormat'));
      const port = intOf(input.text('Port'));
      const username = input.text('Username') ?? '';
      const password = input.text('Password') ?? '';
      const commonName = input.text('CN') ?? '';
      if (!accessInfo || accessInfo.length > 256 || (format !== 3 && format !== 4 && format !== 201)) return refused(fw, 'AccessInfo or InfoFormat is not usable');
      if (port === null || port < 1 || port > 65535) return refused(fw, 'Port is out of range');
      if (intOf(input.text('AuthMethod')) !== 2) return refused(fw, 'AuthMethod is not 2 (user name and password)');
      if (!username || username.length > 16 || !password || password.length > 16) return refused(fw, 'the MPS user name or password is empty or longer than 16');
      if (format !== 201 && !commonName) return refused(fw, 'an IP address needs a CN');
      const name = `Intel(r) AMT:Management Presence Server ${fw.cira.servers.length}`;
      fw.cira.servers.push({ name, accessInfo, infoFormat: format, port, username, password, commonName });
      return returned(0, ['MpServer', epr(MPS_SAP, { CreationClassName: MPS_SAP, Name: name, SystemCreationClassName: 'CIM_ComputerSystem', SystemName: 'Intel(r) AMT' })]);
    },
  },
  AddRemoteAccessPolicyRule: {
    who: 'admin',
    run(fw, input) {
      const early = activatedOnly(fw, 'AddRemoteAccessPolicyRule');
      if (early) return early;
      const trigger = intOf(input.text('Trigger'));
      const server = input.reference('MpServer')?.['Name'];
      if (trigger === null || !(trigger in RULE_NAMES)) return refused(fw, 'Trigger is not 0, 1 or 2');
      if (!server || !fw.cira.servers.some((s) => s.name === server)) return refused(fw, 'MpServer names no MPS entry');
      const extendedData = input.text('ExtendedData') ?? '';
      if (trigger === 2 && Buffer.from(extendedData, 'base64').length !== 8) return refused(fw, 'a periodic rule needs 8 bytes of ExtendedData');
      const name = RULE_NAMES[trigger]!;
      if (fw.cira.rules.some((r) => r.name === name)) return refused(fw, `a ${name} rule exists`);
      fw.cira.rules.push({ name, trigger, tunnelLifeTime: intOf(input.text('TunnelLifeTime')) ?? 0, extendedData, server, mpsType: 0 });
      return returned(0, ['PolicyRule', epr('AMT_RemoteAccessPolicyRule', { CreationClassName: 'AMT_RemoteAccessPolicyRule', PolicyRuleName: name, SystemCreationClassName: 'CIM_ComputerSystem', SystemName: 'Intel(r) AMT' })]);
    },
  },
};

const USER_INITIATED = 'AMT_UserInitiatedConnectionService';
const userInitiated = (fw: FirmwareState): SimInstance => ({
  className: USER_INITIATED,
  props: [
    ['CreationClassName', USER_INITIATED],
    ['ElementName', 'Intel(r) AMT User Initiated Connection Service'],
    ['EnabledState', fw.cira.userInitiated],
    ['Name', 'Intel(r) AMT User Initiated Connection Service'],
    ['SystemCreationClassName', 'CIM_ComputerSystem'],
    ['SystemName', 'Intel(r) AMT'],
  ],
});

export const USER_INITIATED_CALLS: Record<string, FirmwareCall> = {
  Get: { who: 'any', run: (fw) => ({ instance: userInitiated(fw) }) },
  RequestStateChange: {
    who: 'admin',
    run(fw, input) {
      const early = activatedOnly(fw, 'RequestStateChange of the user-initiated connection service');
      if (early) return early;
      const state = intOf(input.text('RequestedState'));
      if (state === null || state < 32768 || state > 32771) return refused(fw, 'RequestedState is not 32768 to 32771');
      fw.cira.userInitiated = state;
      return returned(0);
    },
  },
};

const DETECTION = 'AMT_EnvironmentDetectionSettingData';
const ELEMENT = 'Intel(r) AMT Environment Detection Settings';
const detection = (fw: FirmwareState): SimInstance => ({
  className: DETECTION,
  props: [
    ['DetectionAlgorithm', 0],
    ...(fw.cira.detectionStrings.length ? [['DetectionStrings', fw.cira.detectionStrings] as const] : []),
    ['ElementName', ELEMENT],
    ['InstanceID', ELEMENT],
  ],
});

export const DETECTION_CALLS: Record<string, FirmwareCall> = {
  Get: { who: 'any', run: (fw) => ({ instance: detection(fw) }) },
  Put: {
    who: 'admin',
    run(fw, input) {
      if (fw.controlMode === 0) return (fw.refuse('Put of environment detection in pre-provisioning'), { fault: 'invalidParameter' });
      const strings = input.texts('DetectionStrings');
      if (input.text('InstanceID') !== ELEMENT || strings.length > 5 || strings.some((s) => !/^[A-Za-z0-9.-]{1,192}$/.test(s))) {
        return (fw.refuse('environment detection strings are not domain names (at most 5)'), { fault: 'invalidParameter' });
      }
      fw.cira.detectionStrings = strings;
      return { instance: detection(fw) };
    },
  },
};
