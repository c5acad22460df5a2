/** The hardware report of `GET /api/monitor/{deviceId}/hardware`, from the inventory task's output. */
import { decodePlatformGuid } from '../../workers/amt/reads/uuid.js';
import type { HardwareInventory, HardwareSummary } from '../../workers/tasks/task-types.js';

export type { HardwareReport } from './monitor-schemas.js';
import type { HardwareReport } from './monitor-schemas.js';

function platformUuid(classes: Partial<HardwareInventory>): string | null {
  const pkg = classes.CIM_ComputerSystemPackage;
  const guid = pkg?.ok ? pkg.items[0]?.properties['PlatformGUID'] : undefined;
  return decodePlatformGuid(typeof guid === 'string' ? guid : null);
}

/** Builds the report; the system's UUID comes from the platform GUID, else from what the scan learned. */
export function hardwareReport(deviceId: string, classes: Partial<HardwareInventory>, summary: HardwareSummary, knownUuid: string | null, at = new Date()): HardwareReport {
  const uuid = platformUuid(classes) ?? knownUuid;
  const unavailable = Object.entries(classes).flatMap(([className, entry]) => (entry && !entry.ok ? [{ className, reason: entry.error.message }] : []));
  return {
    deviceId,
    readAt: at.toISOString(),
    system: summary.system ? { ...summary.system, uuid } : null,
    baseboard: summary.baseboard,
    bios: summary.bios,
    processors: summary.processors,
    memory: summary.memory,
    storage: summary.storage,
    unavailable,
  };
}
