/**
 * The one-time boot setting used at the next reset: `AMT_BootSettingData` (BIOS setup, or IDE
 * redirection's CD or floppy with `UseIDER` and `IDERBootDevice` 1 / 0, as MeshCommander sets them), the boot
 * order of `CIM_BootConfigSetting` (`Force PXE Boot`, or none), and `CIM_BootService.SetBootConfigRole`
 * making that configuration the one for the next boot.
 */
import { AmtError } from '../errors.js';
import { resourceUri } from '../resource-uris.js';
import type { WsmanClient } from '../wsman-client.js';
import { flattenProperties } from '../wsman-parse.js';

export type BootTarget = 'bios' | 'pxe' | 'hdd' | 'ider-cd' | 'ider-floppy';
export const BOOT_TARGETS: readonly BootTarget[] = ['bios', 'pxe', 'hdd', 'ider-cd', 'ider-floppy'];

const BOOT_SETTING_DATA = 'AMT_BootSettingData';
const BOOT_CONFIG = 'CIM_BootConfigSetting';
const BOOT_CONFIG_ID = 'Intel(r) AMT: Boot Configuration 0';
const PXE_SOURCE = 'Intel(r) AMT: Force PXE Boot';
/** Settings a one-time boot choice resets, whatever an earlier one left. */
const CLEARED = { BIOSPause: 'false', UseIDER: 'false', IDERBootDevice: '0', UseSOL: 'false', UseSafeMode: 'false', BootMediaIndex: '0' };

function checkReturn(what: string, returnValue: number | null): void {
  if (returnValue !== 0) throw new AmtError('AMT_ERR_BAD_RESPONSE', `${what} answered ReturnValue ${returnValue ?? 'none'}`);
}

/** Writes the setting for the next boot; the caller then resets or powers on the device. */
export async function writeBootSetting(client: WsmanClient, boot: BootTarget): Promise<void> {
  const current = flattenProperties((await client.get(BOOT_SETTING_DATA)).properties);
  const properties: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(current)) if (value !== '') properties[name] = value;
  const ider = boot === 'ider-cd' || boot === 'ider-floppy' ? { UseIDER: 'true', IDERBootDevice: boot === 'ider-cd' ? '1' : '0' } : {};
  await client.put(BOOT_SETTING_DATA, { ...properties, ...CLEARED, ...ider, BIOSSetup: boot === 'bios' ? 'true' : 'false' });
  const order = await client.invoke(
    BOOT_CONFIG,
    'ChangeBootOrder',
    boot === 'pxe' ? { Source: { resourceUri: resourceUri('CIM_BootSourceSetting'), selectors: { InstanceID: PXE_SOURCE } } } : {},
    { InstanceID: BOOT_CONFIG_ID },
  );
  checkReturn('CIM_BootConfigSetting.ChangeBootOrder', order.returnValue);
  const role = await client.invoke('CIM_BootService', 'SetBootConfigRole', {
    BootConfigSetting: { resourceUri: resourceUri(BOOT_CONFIG), selectors: { InstanceID: BOOT_CONFIG_ID } },
    Role: 1,
  });
  checkReturn('CIM_BootService.SetBootConfigRole', role.returnValue);
}
