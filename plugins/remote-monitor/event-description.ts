/**
 * Readable descriptions of AMT event log records: the sensor-specific offsets of the IPMI sensor
 * types AMT logs (IPMI 2.0 table 42-3), the firmware progress and error codes of event data 2, and
 * AMT's own authentication-failure record. Anything else keeps the generic description of the decoder.
 */
import type { EventRecord } from '../../workers/tasks/task-types.js';

const FIRMWARE_ERRORS = [
  'Unspecified', 'No system memory is physically installed', 'No usable system memory', 'Unrecoverable hard-disk/ATAPI/IDE device failure',
  'Unrecoverable system-board failure', 'Unrecoverable diskette subsystem failure', 'Unrecoverable hard-disk controller failure',
  'Unrecoverable PS/2 or USB keyboard failure', 'Removable boot media not found', 'Unrecoverable video controller failure',
  'No video device detected', 'Firmware (BIOS) ROM corruption detected', 'CPU voltage mismatch', 'CPU speed matching failure',
];

const FIRMWARE_PROGRESS = [
  'Unspecified', 'Memory initialization', 'Hard-disk initialization', 'Secondary processor(s) initialization', 'User authentication',
  'User-initiated system setup', 'USB resource configuration', 'PCI resource configuration', 'Option ROM initialization',
  'Video initialization', 'Cache initialization', 'SM Bus initialization', 'Keyboard controller initialization',
  'Embedded controller/management controller initialization', 'Docking station attachment', 'Enabling docking station',
  'Docking station ejection', 'Disabling docking station', 'Calling operating system wake-up vector', 'Starting operating system boot process',
  'Baseboard or motherboard initialization', 'Reserved', 'Floppy initialization', 'Keyboard test', 'Pointing device test',
  'Primary processor initialization',
];

/** Sensor type -> its name and the meaning of each event offset. */
const SENSOR_OFFSETS: Record<number, [string, string[]]> = {
  0x05: ['Physical security', ['General chassis intrusion', 'Drive bay intrusion', 'I/O card area intrusion', 'Processor area intrusion', 'LAN leash lost', 'Unauthorized dock', 'Fan area intrusion']],
  0x12: ['System event', ['System reconfigured', 'OEM system boot event', 'Undetermined system hardware failure', 'Entry added to auxiliary log', 'PEF action', 'Timestamp clock synchronization']],
  0x1d: [
    'System boot',
    ['Initiated by power up', 'Initiated by hard reset', 'Initiated by warm reset', 'User requested PXE boot', 'Automatic boot to diagnostic', 'OS initiated hard reset', 'OS initiated warm reset', 'System restart'],
  ],
  0x1e: ['Boot error', ['No bootable media', 'Non-bootable diskette left in drive', 'PXE server not found', 'Invalid boot sector', 'Timeout waiting for user selection of boot source']],
  0x1f: ['OS boot', ['A: boot completed', 'C: boot completed', 'PXE boot completed', 'Diagnostic boot completed', 'CD-ROM boot completed', 'ROM boot completed', 'Boot completed, boot device not specified']],
  0x20: ['OS stop', ['Critical stop during OS load', 'Run-time critical stop', 'OS graceful stop', 'OS graceful shutdown', 'Soft shutdown initiated by PEF', 'Agent not responding']],
  0x22: [
    'ACPI power state',
    [
      'S0/G0 working', 'S1 sleeping, processor context kept', 'S2 sleeping, processor context lost', 'S3 sleeping (suspend to RAM)', 'S4 (suspend to disk)',
      'S5/G2 soft-off', 'S4/S5 soft-off', 'G3 mechanical off', 'Sleeping in S1, S2 or S3', 'G1 sleeping', 'S5 entered by override', 'Legacy on', 'Legacy off',
    ],
  ],
  0x23: ['Watchdog', ['Timer expired', 'Hard reset', 'Power down', 'Power cycle', 'Reserved', 'Reserved', 'Reserved', 'Reserved', 'Timer interrupt']],
  0x25: ['Entity presence', ['Entity present', 'Entity absent', 'Entity disabled']],
};

function firmwareDescription(record: EventRecord): string | null {
  const code = record.eventData[1] ?? -1;
  if (record.eventOffset === 0) return FIRMWARE_ERRORS[code] ? `System firmware error: ${FIRMWARE_ERRORS[code]}` : null;
  if (record.eventOffset === 1) return FIRMWARE_PROGRESS[code] ? `System firmware hang: ${FIRMWARE_PROGRESS[code]}` : null;
  if (record.eventOffset === 2) return FIRMWARE_PROGRESS[code] ? `System firmware progress: ${FIRMWARE_PROGRESS[code]}` : null;
  return null;
}

/** The description of a record, as specific as the record allows. */
export function describeEvent(record: EventRecord): string {
  if (record.eventSensorType === 0x0f) return firmwareDescription(record) ?? record.description;
  if (record.eventSensorType === 0x06) {
    // AMT logs its anti-hammering lockout as a platform security violation with the count in event data 2-3.
    const count = (record.eventData[1] ?? 0) + ((record.eventData[2] ?? 0) << 8);
    return `Authentication failed ${count} times; the system may be under attack`;
  }
  const known = SENSOR_OFFSETS[record.eventSensorType];
  const meaning = known?.[1][record.eventOffset];
  return known && meaning ? `${known[0]}: ${meaning}` : record.description;
}
