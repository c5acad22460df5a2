/** JSON Schemas of the remote-monitor responses and queries (added to the OpenAPI document). */
import { Type } from '@sinclair/typebox';

const NULLABLE_STRING = { type: ['string', 'null'] };
const NULLABLE_TIME = { type: ['string', 'null'], format: 'date-time' };
const NULLABLE_INT = { type: ['integer', 'null'] };
const PART = {
  type: ['object', 'null'],
  properties: { manufacturer: NULLABLE_STRING, model: NULLABLE_STRING, serialNumber: NULLABLE_STRING, version: NULLABLE_STRING },
};

export const ONLINE_ENTRY_SCHEMA = {
  type: 'object',
  required: ['deviceId', 'ipAddress', 'hostname', 'online', 'since', 'lastSeen'],
  properties: {
    deviceId: { type: 'string' },
    ipAddress: { type: 'string' },
    hostname: NULLABLE_STRING,
    online: { type: 'boolean' },
    since: { ...NULLABLE_TIME, description: 'When the device entered its current state' },
    lastSeen: { ...NULLABLE_TIME, description: 'When the device last answered' },
    notMonitored: {
      enum: ['outside-allowed-networks'],
      description: 'Present when the monitor does not probe the device: its address is outside the allowed networks (`allowedNetworks` of the devices plugin), so no device I/O reaches it; `online` is what was last known. Absent while the device holds a CIRA tunnel (its presence comes from the tunnel)',
    },
  },
};

export const MONITOR_SUMMARY_SCHEMA = {
  type: 'object',
  required: ['total', 'online', 'offline', 'unauthorized'],
  properties: {
    total: { type: 'integer', description: 'Known devices' },
    online: { type: 'integer' },
    offline: { type: 'integer' },
    unauthorized: { type: 'integer', description: 'Devices that refused every stored credential at their last scan, or whose sign-ins are paused to avoid a lockout (`locked-out-risk`)' },
  },
};

export const MONITOR_SCHEDULE_SCHEMA = {
  type: 'object',
  required: ['intervalSeconds', 'tickMs', 'tracked', 'probing', 'waiting', 'lastInterval', 'keepingUp'],
  properties: {
    intervalSeconds: { type: 'number' },
    tickMs: { type: 'integer', description: 'How often due devices are dispatched' },
    tracked: { type: 'integer' },
    probing: { type: 'integer', description: 'Devices being probed now' },
    waiting: { type: 'integer', description: 'Devices due but waiting for capacity' },
    lastInterval: {
      type: ['object', 'null'],
      properties: { probes: { type: 'integer' }, maxLagMs: { type: 'integer' }, slowestBatchMs: { type: 'integer' } },
    },
    keepingUp: { type: 'boolean' },
    outsideAllowedNetworks: { type: 'integer', description: 'Known devices not probed because their address is outside the allowed networks' },
  },
};

export const HARDWARE_REPORT_SCHEMA = {
  type: 'object',
  required: ['deviceId', 'readAt', 'system', 'baseboard', 'bios', 'processors', 'memory', 'storage', 'unavailable'],
  properties: {
    deviceId: { type: 'string' },
    readAt: { type: 'string', format: 'date-time' },
    system: { ...PART, properties: { ...PART.properties, uuid: NULLABLE_STRING }, description: 'From CIM_Chassis and CIM_ComputerSystemPackage' },
    baseboard: { ...PART, description: 'From CIM_Card' },
    bios: { type: ['object', 'null'], properties: { manufacturer: NULLABLE_STRING, version: NULLABLE_STRING, releaseDate: NULLABLE_STRING }, description: 'From CIM_BIOSElement' },
    processors: {
      type: 'array',
      description: 'From CIM_Processor and CIM_Chip',
      items: { type: 'object', properties: { model: NULLABLE_STRING, manufacturer: NULLABLE_STRING, maxClockSpeedMhz: NULLABLE_INT, currentClockSpeedMhz: NULLABLE_INT } },
    },
    memory: {
      type: 'array',
      description: 'From CIM_PhysicalMemory',
      items: {
        type: 'object',
        properties: { bankLabel: NULLABLE_STRING, capacityBytes: NULLABLE_INT, speedMhz: NULLABLE_INT, manufacturer: NULLABLE_STRING, partNumber: NULLABLE_STRING, serialNumber: NULLABLE_STRING },
      },
    },
    storage: { type: 'array', description: 'From CIM_MediaAccessDevice', items: { type: 'object', properties: { deviceId: NULLABLE_STRING, maxMediaSizeKb: NULLABLE_INT } } },
    unavailable: { type: 'array', description: 'Classes the device could not give', items: { type: 'object', properties: { className: { type: 'string' }, reason: { type: 'string' } } } },
  },
};

export const MONITOR_EVENT_SCHEMA = {
  type: 'object',
  required: ['time', 'source', 'severity', 'description'],
  properties: {
    time: { type: 'string', format: 'date-time', description: 'Device clock' },
    source: { type: 'string', description: 'The entity that raised the event, e.g. BIOS' },
    severity: { enum: ['Non-recoverable', 'Critical', 'Non-critical', 'OK', 'Information', 'Monitor', 'Unspecified'] },
    description: { type: 'string' },
    sensorType: { type: 'integer' },
    sensorNumber: { type: 'integer' },
    eventType: { type: 'integer' },
    eventOffset: { type: 'integer' },
    eventSourceType: { type: 'integer' },
    entity: { type: 'integer' },
    entityInstance: { type: 'integer' },
    eventData: { type: 'string', description: '8 bytes of event data, hex' },
  },
};

const OFFSET = Type.Integer({ minimum: 0, default: 0, description: 'Items to skip' });
const LIMIT = { minimum: 1, maximum: 1000, description: 'Items to return (at most 1000)' };

export const ONLINE_QUERY = Type.Object({ online: Type.Optional(Type.Boolean({ description: 'Only devices in this state' })), offset: OFFSET, limit: Type.Optional(Type.Integer(LIMIT)) });

export const EVENTS_QUERY = Type.Object({ offset: OFFSET, limit: Type.Integer({ ...LIMIT, default: 100 }) });
