/**
 * Hardware inventory: every CIM class AMT exposes for the platform, enumerated one after the other.
 * A class the device does not support (a SOAP Fault) is reported per class; the others still count.
 */
import { AmtError, toAmtFailure, type AmtFailure } from '../errors.js';
import type { WsmanClient } from '../wsman-client.js';
import { flattenProperties, type WsmanItem } from '../wsman-parse.js';

export const HARDWARE_CLASSES = [
  'CIM_ComputerSystemPackage',
  'CIM_Chassis',
  'CIM_Card',
  'CIM_BIOSElement',
  'CIM_Processor',
  'CIM_PhysicalMemory',
  'CIM_MediaAccessDevice',
  'CIM_PhysicalPackage',
  'CIM_Chip',
] as const;

export type HardwareClass = (typeof HARDWARE_CLASSES)[number];

/** One enumerated instance, flattened: its element name and its properties as text or text lists. */
export interface InventoryItem {
  className: string;
  properties: Record<string, string | string[]>;
}

/** The items of one class, or why they could not be read. */
export type ClassInventory = { ok: true; items: InventoryItem[] } | { ok: false; error: AmtFailure };

export type HardwareInventory = Record<HardwareClass, ClassInventory>;

/** Flattens enumerated items for output. */
export function toInventoryItems(items: readonly WsmanItem[]): InventoryItem[] {
  return items.map((item) => ({ className: item.className, properties: flattenProperties(item.properties) }));
}

/**
 * Enumerates each hardware class. Faults and malformed answers are kept per class; failures that
 * concern the device as a whole (unreachable, unauthorized, timeout, cancelled) are thrown.
 */
export async function readHardwareInventory(client: WsmanClient, classes: readonly HardwareClass[] = HARDWARE_CLASSES): Promise<Partial<HardwareInventory>> {
  const out: Partial<HardwareInventory> = {};
  for (const className of classes) {
    try {
      out[className] = { ok: true, items: toInventoryItems(await client.enumerate(className)) };
    } catch (error) {
      if (error instanceof AmtError && (error.code === 'AMT_ERR_FAULT' || error.code === 'AMT_ERR_BAD_RESPONSE' || error.code === 'AMT_ERR_HTTP_STATUS')) {
        out[className] = { ok: false, error: toAmtFailure(error) };
      } else {
        throw error;
      }
    }
  }
  return out;
}
