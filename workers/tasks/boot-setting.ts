/** Task `boot-setting`: writes the one-time boot setting (BIOS setup, PXE, IDE redirection or the hard disk) for the next reset. */
import type { TaskTools } from '../task-api.js';
import { AmtError } from '../amt/errors.js';
import { runDeviceOperation } from '../amt/device-operation.js';
import { BOOT_TARGETS, writeBootSetting } from '../amt/reads/boot-setting.js';
import type { BootSettingInput, BootSettingOutput } from './task-types.js';

export default async function bootSetting(input: BootSettingInput, tools: TaskTools): Promise<BootSettingOutput> {
  return runDeviceOperation(input?.target, input?.credential, tools.signal, async (client) => {
    if (!BOOT_TARGETS.includes(input.boot)) throw new AmtError('AMT_ERR_INVALID_INPUT', `boot is one of ${BOOT_TARGETS.join(', ')}`);
    await writeBootSetting(client, input.boot);
    return { boot: input.boot };
  });
}
