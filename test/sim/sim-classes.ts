/** The CIM/AMT instances a simulated device serves, built from its state like the vectors show them. */
import { platformGuidOf } from './device-identity.js';
import type { DeviceState } from './device-state.js';
import { BIOS, card, chassis, CHIP, media, memory, PROCESSOR } from './sim-hardware.js';
import { epr, type SimInstance } from './sim-xml.js';

function softwareIdentity(s: DeviceState): SimInstance[] {
  const [major, minor, hotfix, build] = s.config.firmwareVersion.split('.');
  const version = `${major}.${minor}.${hotfix}`;
  const entries: Array<[string, string]> = [
    ['Flash', version],
    ['Netstack', version],
    ['AMTApps', version],
    ['AMT', version],
    ['Sku', '16392'],
    ['VendorID', '8086'],
    ['Build Number', build ?? '0'],
    ['Recovery Version', version],
    ['Recovery Build Num', build ?? '0'],
    ['Legacy Mode', 'False'],
    ['AMT FW Core Version', version],
  ];
  return entries.map(([id, v]) => ({ className: 'CIM_SoftwareIdentity', props: [['InstanceID', id], ['IsEntity', true], ['VersionString', v]] }));
}

function setupAndConfiguration(s: DeviceState): SimInstance {
  return {
    className: 'AMT_SetupAndConfigurationService',
    props: [
      ['CreationClassName', 'AMT_SetupAndConfigurationService'],
      ['ElementName', 'Intel(r) AMT Setup and Configuration Service'],
      ['EnabledState', 5],
      ['Name', 'Intel(r) AMT Setup and Configuration Service'],
      ['PasswordModel', 1],
      ['ProvisioningMode', s.config.provisioningMode],
      ['ProvisioningServerOTP', 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='],
      ['ProvisioningState', s.config.provisioningState],
      ['RequestedState', 12],
      ['SystemCreationClassName', 'CIM_ComputerSystem'],
      ['SystemName', 'Intel(r) AMT'],
      ['ZeroTouchConfigurationEnabled', true],
    ],
  };
}

function generalSettings(s: DeviceState): SimInstance {
  return {
    className: 'AMT_GeneralSettings',
    props: [
      ['AMTNetworkEnabled', 1],
      ['DDNSPeriodicUpdateInterval', 1440],
      ['DDNSTTL', 900],
      ['DDNSUpdateByDHCPServerEnabled', true],
      ['DDNSUpdateEnabled', false],
      ['DHCPv6ConfigurationTimeout', 0],
      ['DigestRealm', s.config.realm],
      ['DomainName', s.domain],
      ['ElementName', 'Intel(r) AMT: General Settings'],
      ['HostName', s.hostname],
      ['HostOSFQDN', s.domain ? `${s.hostname}.${s.domain}` : s.hostname],
      ['IdleWakeTimeout', 65535],
      ['InstanceID', 'Intel(r) AMT: General Settings'],
      ['NetworkInterfaceEnabled', true],
      ['PingResponseEnabled', true],
      ['PowerSource', 0],
      ['PreferredAddressFamily', 0],
      ['PresenceNotificationInterval', 0],
      ['PrivacyLevel', 0],
      ['RmcpPingResponseEnabled', true],
      ['SharedFQDN', true],
      ['WsmanOnlyMode', false],
    ],
  };
}

function computerSystemPackage(s: DeviceState): SimInstance {
  return {
    className: 'CIM_ComputerSystemPackage',
    props: [
      ['Antecedent', epr('CIM_Chassis', { CreationClassName: 'CIM_Chassis', Tag: 'CIM_Chassis' })],
      ['Dependent', epr('CIM_ComputerSystem', { CreationClassName: 'CIM_ComputerSystem', Name: 'ManagedSystem' })],
      ['PlatformGUID', platformGuidOf(s.config.uuid)],
    ],
  };
}

/** What AMT offers out of band (and with an agent) from a given power state. */
export function availablePowerStates(powerState: number): number[] {
  return powerState === 2 ? [10, 8, 5, 11, 4, 7, 14, 12] : [2];
}

function powerAssociation(s: DeviceState): SimInstance {
  return {
    className: 'CIM_AssociatedPowerManagementService',
    props: [
      ['AvailableRequestedPowerStates', availablePowerStates(s.powerState)],
      ['PowerState', s.powerState],
      [
        'ServiceProvided',
        epr('CIM_PowerManagementService', {
          CreationClassName: 'CIM_PowerManagementService',
          Name: 'Intel(r) AMT Power Management Service',
          SystemCreationClassName: 'CIM_ComputerSystem',
          SystemName: 'Intel(r) AMT',
        }),
      ],
      ['UserOfService', epr('CIM_ComputerSystem', { CreationClassName: 'CIM_ComputerSystem', Name: 'ManagedSystem' })],
    ],
  };
}

function messageLog(s: DeviceState): SimInstance {
  const n = s.eventRecords.length;
  return {
    className: 'AMT_MessageLog',
    props: [
      ['Capabilities', [5, 6, 8, 7]],
      ['CharacterSet', 10],
      ['CreationClassName', 'AMT_MessageLog'],
      ['CurrentNumberOfRecords', n],
      ['ElementName', 'Intel(r) AMT:MessageLog 1'],
      ['EnabledState', 2],
      ['MaxNumberOfRecords', 390],
      ['MaxRecordSize', 21],
      ['Name', 'Intel(r) AMT:MessageLog 1'],
      ['OverwritePolicy', 2],
    ],
  };
}

/** Classes answered by Enumerate/Pull, each giving its items. */
export const ENUMERABLE: Record<string, (s: DeviceState) => SimInstance[]> = {
  CIM_SoftwareIdentity: softwareIdentity,
  AMT_SetupAndConfigurationService: (s) => [setupAndConfiguration(s)],
  AMT_GeneralSettings: (s) => [generalSettings(s)],
  CIM_ComputerSystemPackage: (s) => [computerSystemPackage(s)],
  CIM_ServiceAvailableToElement: (s) => [powerAssociation(s)],
  AMT_MessageLog: (s) => [messageLog(s)],
  CIM_Chassis: (s) => [chassis(s)],
  CIM_Card: (s) => [card(s)],
  CIM_BIOSElement: () => [BIOS],
  CIM_Processor: () => [PROCESSOR],
  CIM_PhysicalMemory: (s) => [memory(s, 0), memory(s, 2)],
  CIM_MediaAccessDevice: () => [media(0, 960197124), media(1, 500107862)],
  CIM_PhysicalPackage: (s) => [card(s), chassis(s)],
  CIM_Chip: () => [CHIP],
};

/** Classes answered by Get (singletons, or the first instance). */
export const GETTABLE: Record<string, (s: DeviceState) => SimInstance> = {
  CIM_AssociatedPowerManagementService: powerAssociation,
  AMT_SetupAndConfigurationService: setupAndConfiguration,
  AMT_GeneralSettings: generalSettings,
  CIM_ComputerSystemPackage: computerSystemPackage,
  AMT_MessageLog: messageLog,
  CIM_Chassis: chassis,
  CIM_Card: card,
  CIM_BIOSElement: () => BIOS,
  CIM_Processor: () => PROCESSOR,
  CIM_Chip: () => CHIP,
};

