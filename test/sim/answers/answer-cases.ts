/**
 * Every answer a simulated device gives that a vector (or a second-source template) shows, as a case
 * for `compare-answer.ts`: how to ask the device for it, the vector, and the properties whose value
 * is the device's own. `npm test` compares them with the templates in this folder, the conformance
 * suite with `shared/wsman-vectors` itself.
 */
import { buildEnvelope, enumerateRequest, getRequest, invokeRequest, pullRequest, putRequest } from '../../../workers/amt/wsman-envelope.js';
import type { InputProperties, Selectors } from '../../../workers/amt/wsman-envelope.js';
import { createDeviceState, type DeviceState } from '../device-state.js';
import { deviceConfigs } from '../fleet-options.js';
import { handleWsman } from '../sim-wsman.js';

export interface AnswerCase {
  /** The vector's path under `wsman-vectors/`, or `second-source/...` for an answer no vector shows. */
  vector: string;
  /** The device's answer to the operation. */
  ask(state: DeviceState): string;
  /** Properties (local names) whose value is the device's own. */
  live: readonly string[];
  /** Pull items compared with another vector's instance, by class (that vector's path). */
  itemVectors?: Readonly<Record<string, string>>;
  /** Why the case is as it is, where that is not plain. */
  note?: string;
}

const send = (state: DeviceState, xml: string) => handleWsman(state, xml).body;
const get = (className: string, selectors?: Selectors) => (state: DeviceState) => send(state, buildEnvelope(getRequest(className, '1', selectors)));
const put = (className: string, properties: InputProperties) => (state: DeviceState) => send(state, buildEnvelope(putRequest(className, '1', properties)));
const invoke = (className: string, method: string, input: InputProperties = {}) => (state: DeviceState) => send(state, buildEnvelope(invokeRequest(className, method, '1', input)));
const enumerate = (className: string) => (state: DeviceState) => send(state, buildEnvelope(enumerateRequest(className, '1')));
const pull = (className: string) => (state: DeviceState) => {
  const context = /<g:EnumerationContext>([^<]+)</.exec(enumerate(className)(state))![1]!;
  return send(state, buildEnvelope(pullRequest(className, '2', context, 100)));
};

const COMPUTER_SYSTEM = { resourceUri: 'http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_ComputerSystem', selectors: { CreationClassName: 'CIM_ComputerSystem', Name: 'ManagedSystem' } };
const GENERAL_LIVE = ['DigestRealm', 'DomainName', 'HostName', 'HostOSFQDN'];
const POWER_LIVE = ['AvailableRequestedPowerStates', 'PowerState'];

export const ANSWER_CASES: readonly AnswerCase[] = [
  { vector: 'amt/general/get.xml', ask: get('AMT_GeneralSettings'), live: GENERAL_LIVE },
  {
    vector: 'amt/general/pull.xml',
    ask: pull('AMT_GeneralSettings'),
    live: GENERAL_LIVE,
    itemVectors: { AMT_GeneralSettings: 'amt/general/get.xml' },
    note: 'the Get and Pull vectors come from two firmware versions; the simulator is the Get one, in the Pull page',
  },
  { vector: 'amt/setupandconfiguration/get.xml', ask: get('AMT_SetupAndConfigurationService'), live: ['ProvisioningMode', 'ProvisioningState'] },
  { vector: 'amt/setupandconfiguration/pull.xml', ask: pull('AMT_SetupAndConfigurationService'), live: ['ProvisioningMode', 'ProvisioningState'] },
  { vector: 'amt/messagelog/get.xml', ask: get('AMT_MessageLog'), live: ['CurrentNumberOfRecords', 'PercentageNearFull'] },
  { vector: 'amt/messagelog/pull.xml', ask: pull('AMT_MessageLog'), live: ['CurrentNumberOfRecords', 'PercentageNearFull'] },
  { vector: 'amt/messagelog/positiontofirstrecord.xml', ask: invoke('AMT_MessageLog', 'PositionToFirstRecord'), live: ['IterationIdentifier', 'ReturnValue'] },
  { vector: 'amt/messagelog/getrecords.xml', ask: invoke('AMT_MessageLog', 'GetRecords', { IterationIdentifier: 1, MaxReadRecords: 3 }), live: ['IterationIdentifier', 'NoMoreRecords', 'RecordArray'] },
  { vector: 'cim/software/identity/get.xml', ask: get('CIM_SoftwareIdentity', { InstanceID: 'AMTApps' }), live: ['VersionString'] },
  { vector: 'cim/software/identity/pull.xml', ask: pull('CIM_SoftwareIdentity'), live: ['VersionString'] },
  { vector: 'cim/software/identity/enumerate.xml', ask: enumerate('CIM_SoftwareIdentity'), live: ['EnumerationContext'] },
  { vector: 'cim/computer/systempackage/get.xml', ask: get('CIM_ComputerSystemPackage'), live: ['PlatformGUID'] },
  { vector: 'cim/computer/systempackage/pull.xml', ask: pull('CIM_ComputerSystemPackage'), live: ['PlatformGUID'] },
  { vector: 'cim/service/availabletoelement/pull.xml', ask: pull('CIM_ServiceAvailableToElement'), live: POWER_LIVE },
  { vector: 'second-source/cim/power/associatedpowermanagementservice/get.xml', ask: get('CIM_AssociatedPowerManagementService'), live: POWER_LIVE, note: "the power read's one request" },
  {
    vector: 'cim/power/managementservice/requestpowerstatechange.xml',
    ask: invoke('CIM_PowerManagementService', 'RequestPowerStateChange', { PowerState: 10, ManagedElement: COMPUTER_SYSTEM }),
    live: ['ReturnValue'],
  },
  { vector: 'cim/chassis/get.xml', ask: get('CIM_Chassis'), live: ['SerialNumber'] },
  { vector: 'cim/chassis/pull.xml', ask: pull('CIM_Chassis'), live: ['SerialNumber'] },
  { vector: 'cim/card/get.xml', ask: get('CIM_Card'), live: ['SerialNumber'] },
  { vector: 'cim/card/pull.xml', ask: pull('CIM_Card'), live: ['SerialNumber'] },
  { vector: 'cim/bios/element/get.xml', ask: get('CIM_BIOSElement'), live: [] },
  { vector: 'cim/bios/element/pull.xml', ask: pull('CIM_BIOSElement'), live: [] },
  { vector: 'cim/physical/processor/get.xml', ask: get('CIM_Processor'), live: [] },
  { vector: 'cim/physical/processor/pull.xml', ask: pull('CIM_Processor'), live: [] },
  { vector: 'cim/physical/memory/pull.xml', ask: pull('CIM_PhysicalMemory'), live: ['SerialNumber'] },
  { vector: 'cim/mediaaccess/pull.xml', ask: pull('CIM_MediaAccessDevice'), live: [] },
  {
    vector: 'cim/physical/package/pull.xml',
    ask: pull('CIM_PhysicalPackage'),
    live: ['SerialNumber', 'EnumerationContext'],
    itemVectors: { CIM_Chassis: 'cim/chassis/get.xml' },
    note: "the vector's page holds the card; the device's chassis, a physical package too, follows it",
  },
  { vector: 'cim/chip/get.xml', ask: get('CIM_Chip'), live: [] },
  // cim/chip/pull.xml is a page with more to come (a machine of more chips): the chip is compared through get.xml.
  { vector: 'amt/redirectionservice/get.xml', ask: get('AMT_RedirectionService'), live: ['EnabledState', 'ListenerEnabled'] },
  { vector: 'amt/redirectionservice/put.xml', ask: put('AMT_RedirectionService', { ListenerEnabled: 'true' }), live: ['EnabledState', 'ListenerEnabled'] },
  { vector: 'amt/redirectionservice/requeststatechange.xml', ask: invoke('AMT_RedirectionService', 'RequestStateChange', { RequestedState: 32771 }), live: ['ReturnValue'] },
  { vector: 'cim/kvm/get.xml', ask: get('CIM_KVMRedirectionSAP'), live: ['EnabledState', 'RequestedState'] },
  { vector: 'second-source/cim/kvm/requeststatechange.xml', ask: invoke('CIM_KVMRedirectionSAP', 'RequestStateChange', { RequestedState: 2 }), live: ['ReturnValue'] },
  { vector: 'second-source/ips/kvmredirection/settings/get.xml', ask: get('IPS_KVMRedirectionSettingData'), live: ['OptInPolicy', 'SessionTimeout'] },
  { vector: 'ips/optin/get.xml', ask: get('IPS_OptInService'), live: ['CanModifyOptInPolicy', 'OptInRequired', 'OptInState'] },
  { vector: 'ips/optin/startoptin.xml', ask: invoke('IPS_OptInService', 'StartOptIn'), live: ['ReturnValue'] },
  { vector: 'ips/optin/sendoptincode.xml', ask: invoke('IPS_OptInService', 'SendOptInCode', { OptInCode: 1 }), live: ['ReturnValue'] },
  { vector: 'ips/optin/canceloptin.xml', ask: invoke('IPS_OptInService', 'CancelOptIn'), live: ['ReturnValue'] },
  { vector: 'amt/boot/settingdata/get.xml', ask: get('AMT_BootSettingData'), live: ['BIOSSetup'] },
  { vector: 'cim/boot/configsetting/get.xml', ask: get('CIM_BootConfigSetting'), live: [] },
  { vector: 'cim/boot/configsetting/changebootorder.xml', ask: invoke('CIM_BootConfigSetting', 'ChangeBootOrder'), live: ['ReturnValue'] },
  { vector: 'cim/boot/service/get.xml', ask: get('CIM_BootService'), live: [] },
  {
    vector: 'cim/boot/service/setbootconfigrole.xml',
    ask: invoke('CIM_BootService', 'SetBootConfigRole', {
      BootConfigSetting: { resourceUri: 'http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_BootConfigSetting', selectors: { InstanceID: 'Intel(r) AMT: Boot Configuration 0' } },
      Role: 1,
    }),
    live: ['ReturnValue'],
  },
];

/** A simulated device of its own for one case (methods change its state). */
export function sampleDevice(): DeviceState {
  const [config] = deviceConfigs({ count: 1, base: '127.0.0.1', rmcpPort: 0, seed: 'answer-cases' });
  return createDeviceState(config!, 'answer-cases');
}
