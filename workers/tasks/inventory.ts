/** Task `inventory`: the hardware inventory classes, raw (per class) and summarised. */
import type { TaskTools } from '../task-api.js';
import { runDeviceOperation } from '../amt/device-operation.js';
import { readHardwareInventory } from '../amt/reads/hardware-inventory.js';
import { summarizeHardware } from '../amt/reads/hardware-summary.js';
import type { InventoryInput, InventoryOutput } from './task-types.js';

export default async function inventory(input: InventoryInput, tools: TaskTools): Promise<InventoryOutput> {
  return runDeviceOperation(input?.target, input?.credential, tools.signal, async (client) => {
    const classes = await readHardwareInventory(client);
    return { classes, summary: summarizeHardware(classes) };
  });
}
