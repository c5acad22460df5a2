/**
 * Decodes `AMT_MessageLog` records: base64 of 21 bytes each, a PET (platform event trap) entry:
 * timestamp (uint32 LE, seconds), device address, sensor type, event type, event offset, source type,
 * severity, sensor number, entity, entity instance, 8 bytes of event data.
 */

export interface EventRecord {
  /** ISO 8601 time of the event (device clock). */
  time: string;
  timestamp: number;
  deviceAddress: number;
  eventSensorType: number;
  eventType: number;
  eventOffset: number;
  eventSourceType: number;
  eventSeverity: number;
  severity: string;
  sensorNumber: number;
  entity: number;
  entityName: string;
  entityInstance: number;
  eventData: number[];
  description: string;
}

const ENTITIES = [
  'Unspecified', 'Other', 'Unknown', 'Processor', 'Disk', 'Peripheral', 'System management module', 'System board',
  'Memory module', 'Processor module', 'Power supply', 'Add in card', 'Front panel board', 'Back panel board',
  'Power system board', 'Drive backplane', 'System internal expansion board', 'Other system board', 'Processor board',
  'Power unit', 'Power module', 'Power management board', 'Chassis back panel board', 'System chassis', 'Sub chassis',
  'Other chassis board', 'Disk drive bay', 'Peripheral bay', 'Device bay', 'Fan cooling', 'Cooling unit',
  'Cable interconnect', 'Memory device', 'System management software', 'BIOS', 'Intel(r) ME', 'System bus', 'Group',
  'Intel(r) ME', 'External environment', 'Battery', 'Processing blade', 'Connectivity switch',
  'Processor/memory module', 'I/O module', 'Processor I/O module', 'Management controller firmware', 'IPMI channel',
  'PCI bus', 'PCI express bus', 'SCSI bus', 'SATA/SAS bus', 'Processor front side bus',
];

const SEVERITIES: Array<[number, string]> = [
  [0x20, 'Non-recoverable'],
  [0x10, 'Critical'],
  [0x08, 'Non-critical'],
  [0x04, 'OK'],
  [0x02, 'Information'],
  [0x01, 'Monitor'],
];

/** Sensor types whose meaning does not depend on vendor data (IPMI table 42-3), for a short description. */
const SENSOR_TYPES: Record<number, string> = {
  0x01: 'Temperature', 0x02: 'Voltage', 0x04: 'Fan', 0x05: 'Chassis intrusion', 0x06: 'Platform security', 0x07: 'Processor',
  0x08: 'Power supply', 0x0c: 'Memory', 0x0f: 'System firmware progress', 0x10: 'Event logging',
  0x12: 'System event', 0x13: 'Critical interrupt', 0x1d: 'System boot', 0x1e: 'Boot error', 0x1f: 'OS boot',
  0x20: 'OS stop', 0x22: 'ACPI power state', 0x23: 'Watchdog', 0x25: 'Entity presence', 0x6f: 'Intel(r) AMT',
};

function severityName(severity: number): string {
  return SEVERITIES.find(([bit]) => (severity & bit) !== 0)?.[1] ?? 'Unspecified';
}

/** Decodes one base64 record; null when it is not 21 bytes of base64. */
export function decodeEventRecord(base64: string): EventRecord | null {
  if (!/^[A-Za-z0-9+/]+=*$/.test(base64)) return null;
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length < 21) return null;
  const timestamp = bytes.readUInt32LE(0);
  const sensorType = bytes[5]!;
  const entity = bytes[11]!;
  const entityName = ENTITIES[entity] ?? `Entity ${entity}`;
  const severity = severityName(bytes[9]!);
  const sensor = SENSOR_TYPES[sensorType] ?? `Sensor type ${sensorType}`;
  return {
    time: new Date(timestamp * 1000).toISOString(),
    timestamp,
    deviceAddress: bytes[4]!,
    eventSensorType: sensorType,
    eventType: bytes[6]!,
    eventOffset: bytes[7]!,
    eventSourceType: bytes[8]!,
    eventSeverity: bytes[9]!,
    severity,
    sensorNumber: bytes[10]!,
    entity,
    entityName,
    entityInstance: bytes[12]!,
    eventData: [...bytes.subarray(13, 21)],
    description: `${sensor}, event offset ${bytes[7]}, on ${entityName}`,
  };
}
