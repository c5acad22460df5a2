/**
 * The remote-monitor's responses and queries (added to the OpenAPI document): TypeBox schemas, their
 * types derived. TypeBox and core/validation/schema-types only, so that the console can import the types.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { DateTime, Nullable, NullableString, StringEnum } from '../../core/validation/schema-types.js';

const NullableInt = () => Nullable(Type.Integer());
const NullableTime = (description: string) => Nullable(DateTime({ description }));
const PART = { manufacturer: NullableString(), model: NullableString(), serialNumber: NullableString(), version: NullableString() };
const NullableObject = <P extends Record<string, TSchema>>(properties: P, description: string) => Nullable(Type.Object(properties, { description }));

export const ONLINE_ENTRY_SCHEMA = Type.Object({
  deviceId: Type.String(),
  ipAddress: Type.String(),
  hostname: NullableString(),
  online: Type.Boolean(),
  since: NullableTime('When the device entered its current state'),
  lastSeen: NullableTime('When the device last answered'),
  notMonitored: Type.Optional(
    StringEnum(['outside-allowed-networks'], {
      description:
        'Present when the monitor does not probe the device: its address is outside the allowed networks (`allowedNetworks` of the devices plugin), so no device I/O reaches it; `online` is what was last known. Absent while the device holds a CIRA tunnel (its presence comes from the tunnel)',
    }),
  ),
});

export type OnlineEntry = Static<typeof ONLINE_ENTRY_SCHEMA>;

export const MONITOR_SUMMARY_SCHEMA = Type.Object({
  total: Type.Integer({ description: 'Known devices' }),
  online: Type.Integer(),
  offline: Type.Integer(),
  unauthorized: Type.Integer({ description: 'Devices that refused every stored credential at their last scan, or whose sign-ins are paused to avoid a lockout (`locked-out-risk`)' }),
});

export type MonitorSummary = Static<typeof MONITOR_SUMMARY_SCHEMA>;

export const MONITOR_SCHEDULE_SCHEMA = Type.Object({
  intervalSeconds: Type.Number(),
  tickMs: Type.Integer({ description: 'How often due devices are dispatched' }),
  tracked: Type.Integer(),
  probing: Type.Integer({ description: 'Devices being probed now' }),
  waiting: Type.Integer({ description: 'Devices due but waiting for capacity' }),
  lastInterval: NullableObject(
    { probes: Type.Integer(), maxLagMs: Type.Integer(), slowestBatchMs: Type.Integer() },
    'The last complete interval: probes sent, the latest a probe left after its due time, the slowest sweep task',
  ),
  keepingUp: Type.Boolean({ description: 'No device waits for capacity and none was dispatched more than two ticks late in the last interval' }),
  outsideAllowedNetworks: Type.Integer({ description: 'Known devices not probed because their address is outside the allowed networks (`allowedNetworks` of the devices plugin)' }),
});

export type MonitorSchedule = Static<typeof MONITOR_SCHEDULE_SCHEMA>;

export const HARDWARE_REPORT_SCHEMA = Type.Object({
  deviceId: Type.String(),
  readAt: DateTime(),
  system: NullableObject({ ...PART, uuid: NullableString() }, 'From CIM_Chassis and CIM_ComputerSystemPackage'),
  baseboard: NullableObject(PART, 'From CIM_Card'),
  bios: NullableObject({ manufacturer: NullableString(), version: NullableString(), releaseDate: NullableString() }, 'From CIM_BIOSElement'),
  processors: Type.Array(
    Type.Object({ model: NullableString(), manufacturer: NullableString(), maxClockSpeedMhz: NullableInt(), currentClockSpeedMhz: NullableInt() }),
    { description: 'From CIM_Processor and CIM_Chip' },
  ),
  memory: Type.Array(
    Type.Object({
      bankLabel: NullableString(),
      capacityBytes: NullableInt(),
      speedMhz: NullableInt(),
      manufacturer: NullableString(),
      partNumber: NullableString(),
      serialNumber: NullableString(),
    }),
    { description: 'From CIM_PhysicalMemory' },
  ),
  storage: Type.Array(Type.Object({ deviceId: NullableString(), maxMediaSizeKb: NullableInt() }), { description: 'From CIM_MediaAccessDevice' }),
  unavailable: Type.Array(Type.Object({ className: Type.String(), reason: Type.String() }), { description: 'CIM classes the device could not give (e.g. a class its firmware lacks), with the reason' }),
});

export type HardwareReport = Static<typeof HARDWARE_REPORT_SCHEMA>;

export const EVENT_SEVERITIES = ['Non-recoverable', 'Critical', 'Non-critical', 'OK', 'Information', 'Monitor', 'Unspecified'] as const;

export const MONITOR_EVENT_SCHEMA = Type.Object({
  time: DateTime({ description: 'Device clock' }),
  source: Type.String({ description: 'The entity that raised the event, e.g. BIOS' }),
  severity: StringEnum(EVENT_SEVERITIES),
  description: Type.String(),
  // The raw PET fields, for clients that decode further.
  sensorType: Type.Integer(),
  sensorNumber: Type.Integer(),
  eventType: Type.Integer(),
  eventOffset: Type.Integer(),
  eventSourceType: Type.Integer(),
  entity: Type.Integer(),
  entityInstance: Type.Integer(),
  eventData: Type.String({ description: '8 bytes of event data, hex' }),
});

export type MonitorEvent = Static<typeof MONITOR_EVENT_SCHEMA>;

const OFFSET = Type.Integer({ minimum: 0, default: 0, description: 'Items to skip' });
const LIMIT = { minimum: 1, maximum: 1000, description: 'Items to return (at most 1000)' };

export const ONLINE_QUERY = Type.Object({ online: Type.Optional(Type.Boolean({ description: 'Only devices in this state' })), offset: OFFSET, limit: Type.Optional(Type.Integer(LIMIT)) });

export const EVENTS_QUERY = Type.Object({ offset: OFFSET, limit: Type.Integer({ ...LIMIT, default: 100 }) });
