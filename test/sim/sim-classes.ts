/**
 * The CIM/AMT instances a simulated device serves: the templates of `answers/` (the published
 * vectors) with the values the device's state decides.
 */
import { platformGuidOf } from './device-identity.js';
import type { DeviceState } from './device-state.js';
import { BIOS, card, chassis, CHIP, MEDIA, memory, PROCESSOR } from './sim-hardware.js';
import type { SimInstance } from './sim-xml.js';
import { instanceTemplate, instanceTemplates } from './answers/answer-templates.js';

const SOFTWARE_IDENTITY = instanceTemplates('vectors/cim/software/identity/pull.xml');
const SETUP = instanceTemplate('vectors/amt/setupandconfiguration/get.xml');
const GENERAL = instanceTemplate('vectors/amt/general/get.xml');
const PACKAGE = instanceTemplate('vectors/cim/computer/systempackage/get.xml');
const POWER = instanceTemplate('vectors/cim/service/availabletoelement/pull.xml');
const MESSAGE_LOG = instanceTemplate('vectors/amt/messagelog/get.xml');
/** The Pull answers whose last page keeps the context beside EndOfSequence, as their vectors show. */
export const PULL_SHAPES: Record<string, string> = { CIM_PhysicalPackage: 'vectors/cim/physical/package/pull.xml' };

function softwareIdentity(s: DeviceState): SimInstance[] {
  const [major, minor, hotfix, build] = s.config.firmwareVersion.split('.');
  const version = `${major}.${minor}.${hotfix}`;
  // The entries that carry the firmware version or its build; the others (SKU, vendor, legacy mode) are the vector's.
  const versions: Record<string, string> = {
    Flash: version,
    Netstack: version,
    AMTApps: version,
    AMT: version,
    'Build Number': build ?? '0',
    'Recovery Version': version,
    'Recovery Build Num': build ?? '0',
    'AMT FW Core Version': version,
  };
  return SOFTWARE_IDENTITY.map((entry) => {
    const id = entry.value('InstanceID') as string;
    return versions[id] === undefined ? entry.with() : entry.with({ VersionString: versions[id] });
  });
}

const setupAndConfiguration = (s: DeviceState): SimInstance => SETUP.with({ ProvisioningMode: s.config.provisioningMode, ProvisioningState: s.config.provisioningState });

const generalSettings = (s: DeviceState): SimInstance =>
  GENERAL.with({ DigestRealm: s.config.realm, DomainName: s.domain, HostName: s.hostname, HostOSFQDN: s.domain ? `${s.hostname}.${s.domain}` : s.hostname });

const computerSystemPackage = (s: DeviceState): SimInstance => PACKAGE.with({ PlatformGUID: platformGuidOf(s.config.uuid) });

/** What AMT offers out of band (and with an agent) from a given power state. */
export function availablePowerStates(powerState: number): number[] {
  return powerState === 2 ? [10, 8, 5, 11, 4, 7, 14, 12] : [2];
}

const powerAssociation = (s: DeviceState): SimInstance => POWER.with({ AvailableRequestedPowerStates: availablePowerStates(s.powerState), PowerState: s.powerState });

function messageLog(s: DeviceState): SimInstance {
  const max = Number(MESSAGE_LOG.value('MaxNumberOfRecords'));
  const n = s.eventRecords.length;
  return MESSAGE_LOG.with({ CurrentNumberOfRecords: n, PercentageNearFull: Math.round((100 * n) / max) });
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
  CIM_PhysicalMemory: memory,
  CIM_MediaAccessDevice: () => MEDIA,
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
