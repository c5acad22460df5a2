/**
 * A scan's shapes: the scan as the API answers it and the hub sends it (ScanStarted, ScanCompleted,
 * ScanCancelled, ScanFailed), the ScanProgress and DeviceDiscovered events, and the scan requests.
 * TypeBox schemas, their types derived; TypeBox and shape modules only, so that the console can
 * import the types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { ComponentRef, DateTime, Nullable, StringEnum } from '../../../core/validation/schema-types.js';
import type { DEVICE_SCHEMA } from '../../devices/registry/device-schemas.js';

export const SCAN_STATUSES = ['running', 'completed', 'cancelled', 'failed', 'interrupted'] as const;

export const SCAN_SCHEMA = Type.Object({
  id: Type.String(),
  range: Type.String(),
  status: StringEnum(SCAN_STATUSES, { description: '`interrupted`: the process stopped while the scan ran (set on the next start)' }),
  total: Type.Integer({ description: 'Addresses in the range' }),
  scanned: Type.Integer({ description: 'Addresses probed so far' }),
  found: Type.Integer({ description: 'AMT devices found and recorded so far' }),
  startedAt: DateTime(),
  finishedAt: Type.Optional(DateTime()),
  error: Type.Optional(Type.String()),
});

export type Scan = Static<typeof SCAN_SCHEMA>;
export type ScanStatus = Scan['status'];

/** `ScanProgress` on the event bus and the hub: at most one per interval per scan, 100 % at once. */
export const SCAN_PROGRESS_EVENT_SCHEMA = Type.Object({
  scanId: Type.String(),
  scanned: Type.Integer({ description: 'Addresses whose every probe is decided' }),
  total: Type.Integer(),
  found: Type.Integer(),
  percent: Type.Number({ minimum: 0, maximum: 100, description: 'Of the whole scan, from probes decided: it moves while addresses wait out silence' }),
  probesDecided: Type.Optional(Type.Integer({ description: 'TCP probes decided (answered, refused or timed out) of `probesTotal` (addresses × TCP ports)' })),
  probesTotal: Type.Optional(Type.Integer()),
  etaSeconds: Type.Optional(Nullable(Type.Number({ description: 'Estimated seconds left (probing still to do and device reads waiting), null until measured' }))),
});

export type ScanProgressEvent = Static<typeof SCAN_PROGRESS_EVENT_SCHEMA>;

/** `DeviceDiscovered`: a scan found a device (new or known). */
export const DEVICE_DISCOVERED_EVENT_SCHEMA = Type.Object({
  scanId: Type.String(),
  device: ComponentRef<typeof DEVICE_SCHEMA>('Device'),
});

export type DeviceDiscoveredEvent = Static<typeof DEVICE_DISCOVERED_EVENT_SCHEMA>;

/** The scan events rest-api publishes, on the bus and, through the hub, to clients. */
export interface ScanEvents {
  ScanStarted: Scan;
  ScanProgress: ScanProgressEvent;
  DeviceDiscovered: DeviceDiscoveredEvent;
  ScanCompleted: Scan;
  ScanCancelled: Scan;
  ScanFailed: Scan;
}

export const START_SCAN_SCHEMA = Type.Object(
  {
    range: Type.String({
      minLength: 1,
      maxLength: 2000,
      description: 'Comma-separated IPv4 targets: single addresses, CIDR (10.0.0.0/24), dashed (10.0.0.1-10.0.0.50) or last-octet (10.0.0.1-50) ranges',
      examples: ['192.168.1.0/24', '10.0.0.1-50,10.0.1.7'],
    }),
    credentialId: Type.Optional(Type.String({ minLength: 1, description: 'Sign in with this credential only; default: the default credential, then the others' })),
    timeoutMs: Type.Optional(
      Type.Integer({
        minimum: 50,
        maximum: 60000,
        description: 'Connect timeout per probe before any round trip is measured, and its most; it adapts to the round trips measured on the scan (bounded by the site configuration)',
      }),
    ),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 65536, description: 'Probes in flight at most (bounded by the site configuration and ulimit -n)' })),
  },
  { additionalProperties: false },
);

/** What `POST /api/scan/start` takes. */
export type StartScanRequest = Static<typeof START_SCAN_SCHEMA>;

export const SCANS_QUERY = Type.Object({ offset: Type.Integer({ minimum: 0, default: 0 }), limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }) });
