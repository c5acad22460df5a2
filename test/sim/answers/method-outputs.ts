/** The templates of the method answers a simulated device gives (`{Method}_OUTPUT`), by class and method. */
import { instanceTemplate, type InstanceTemplate } from './answer-templates.js';

export const OUTPUT_FILES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  CIM_PowerManagementService: { RequestPowerStateChange: 'vectors/cim/power/managementservice/requestpowerstatechange.xml' },
  AMT_MessageLog: { PositionToFirstRecord: 'vectors/amt/messagelog/positiontofirstrecord.xml', GetRecords: 'vectors/amt/messagelog/getrecords.xml' },
  AMT_RedirectionService: { RequestStateChange: 'vectors/amt/redirectionservice/requeststatechange.xml' },
  CIM_KVMRedirectionSAP: { RequestStateChange: 'second-source/cim/kvm/requeststatechange.xml' },
  IPS_OptInService: { StartOptIn: 'vectors/ips/optin/startoptin.xml', SendOptInCode: 'vectors/ips/optin/sendoptincode.xml', CancelOptIn: 'vectors/ips/optin/canceloptin.xml' },
  CIM_BootConfigSetting: { ChangeBootOrder: 'vectors/cim/boot/configsetting/changebootorder.xml' },
  CIM_BootService: { SetBootConfigRole: 'vectors/cim/boot/service/setbootconfigrole.xml' },
};

const loaded = new Map<string, InstanceTemplate>();

/** The template of `className.method`'s answer. @throws for a method the simulator has no answer for. */
export function outputTemplate(className: string, method: string): InstanceTemplate {
  const file = OUTPUT_FILES[className]?.[method];
  if (!file) throw new Error(`no answer template for ${className}.${method}`);
  let template = loaded.get(file);
  if (!template) {
    template = instanceTemplate(file);
    loaded.set(file, template);
  }
  return template;
}
