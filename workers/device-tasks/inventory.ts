/** Device task `inventory`: the hardware inventory classes, raw (per class) and summarised. */
import { readHardwareInventory, type HardwareInventory } from '../amt/reads/hardware-inventory.js';
import { summarizeHardware, type HardwareSummary } from '../amt/reads/hardware-summary.js';
import type { BuiltInDeviceTask } from './built-in.js';
import type { NoInput } from './device-task-types.js';

const inventory: BuiltInDeviceTask<NoInput, { classes: Partial<HardwareInventory>; summary: HardwareSummary }> = async (wsman) => {
  const classes = await readHardwareInventory(wsman);
  return { classes, summary: summarizeHardware(classes) };
};
export default inventory;
