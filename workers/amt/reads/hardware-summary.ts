/** A readable summary of the hardware inventory: system, baseboard, BIOS, processors, memory, storage. */
import type { HardwareInventory, InventoryItem } from './hardware-inventory.js';

export interface HardwareSummary {
  system: { manufacturer: string | null; model: string | null; serialNumber: string | null; version: string | null } | null;
  baseboard: { manufacturer: string | null; model: string | null; serialNumber: string | null; version: string | null } | null;
  bios: { manufacturer: string | null; version: string | null; releaseDate: string | null } | null;
  processors: Array<{ model: string | null; manufacturer: string | null; maxClockSpeedMhz: number | null; currentClockSpeedMhz: number | null }>;
  memory: Array<{ bankLabel: string | null; capacityBytes: number | null; speedMhz: number | null; manufacturer: string | null; partNumber: string | null; serialNumber: string | null }>;
  storage: Array<{ deviceId: string | null; maxMediaSizeKb: number | null }>;
}

function str(item: InventoryItem | undefined, name: string): string | null {
  const value = item?.properties[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === '' ? null : text.trim();
}

function num(item: InventoryItem | undefined, name: string): number | null {
  const text = str(item, name);
  if (text === null || !/^\d+$/.test(text)) return null;
  return Number(text);
}

function items(inventory: Partial<HardwareInventory>, className: keyof HardwareInventory): InventoryItem[] {
  const entry = inventory[className];
  return entry?.ok ? entry.items : [];
}

/** Summarises the classes that were read; absent classes give null or empty lists. */
export function summarizeHardware(inventory: Partial<HardwareInventory>): HardwareSummary {
  const chassis = items(inventory, 'CIM_Chassis')[0];
  const card = items(inventory, 'CIM_Card')[0];
  const bios = items(inventory, 'CIM_BIOSElement')[0];
  const chips = items(inventory, 'CIM_Chip');
  return {
    system: chassis
      ? { manufacturer: str(chassis, 'Manufacturer'), model: str(chassis, 'Model'), serialNumber: str(chassis, 'SerialNumber'), version: str(chassis, 'Version') }
      : null,
    baseboard: card
      ? { manufacturer: str(card, 'Manufacturer'), model: str(card, 'Model'), serialNumber: str(card, 'SerialNumber'), version: str(card, 'Version') }
      : null,
    bios: bios ? { manufacturer: str(bios, 'Manufacturer'), version: str(bios, 'Version'), releaseDate: str(bios, 'ReleaseDate') } : null,
    processors: items(inventory, 'CIM_Processor').map((cpu) => {
      const chip = chips.find((c) => str(c, 'Tag') === str(cpu, 'DeviceID'));
      return {
        model: str(chip, 'Version'),
        manufacturer: str(chip, 'Manufacturer'),
        maxClockSpeedMhz: num(cpu, 'MaxClockSpeed'),
        currentClockSpeedMhz: num(cpu, 'CurrentClockSpeed'),
      };
    }),
    memory: items(inventory, 'CIM_PhysicalMemory').map((m) => ({
      bankLabel: str(m, 'BankLabel'),
      capacityBytes: num(m, 'Capacity'),
      speedMhz: num(m, 'ConfiguredMemoryClockSpeed') ?? num(m, 'Speed'),
      manufacturer: str(m, 'Manufacturer'),
      partNumber: str(m, 'PartNumber'),
      serialNumber: str(m, 'SerialNumber'),
    })),
    storage: items(inventory, 'CIM_MediaAccessDevice').map((d) => ({ deviceId: str(d, 'DeviceID'), maxMediaSizeKb: num(d, 'MaxMediaSize') })),
  };
}
