/** Options of the rest-api plugin (`plugins.rest-api.options`); the type is the schema's. */
import { Type, type Static } from '@sinclair/typebox';
import { Section } from '../../core/validation/schema-types.js';

const int = (minimum: number, maximum: number, value: number) => Type.Integer({ minimum, maximum, default: value });
/** A deprecated option's field: the devices plugin's bounds (plugins/devices/config.ts), no default (only what a site set is passed on). */
const bare = ({ minimum, maximum }: { minimum: number; maximum: number }) => Type.Optional(Type.Integer({ minimum, maximum }));

export const REST_API_CONFIG_SCHEMA = Section({
  scan: Section({
    /** Widest range one scan may cover. */
    maxAddresses: int(1, 16777216, 65536),
    /** Scans that may run at once. */
    maxConcurrentScans: int(1, 64, 4),
    /** Of those, scans one user may have running at once, so that no user holds every place. */
    maxConcurrentScansPerUser: int(1, 64, 2),
    /** Addresses per worker-pool task. */
    batchSize: int(1, 16384, 2048),
    /** Per-scan defaults and the bounds a request may ask for. */
    defaultTimeoutMs: int(50, 60000, 1000),
    maxTimeoutMs: int(50, 60000, 10000),
    /** Probes (sockets) in flight per scan; a request may ask up to the maximum. Lowered to fit `ulimit -n`. */
    defaultConcurrency: int(1, 65536, 4096),
    maxConcurrency: int(1, 65536, 16384),
    /** New TCP probes per second per scan (the RMCP pings go at the same pace, one per address). */
    probeRate: int(1, 1000000, 50000),
    /** The least a probe timeout adapts down to; the scan's timeoutMs is where it starts and the most it is. */
    minProbeTimeoutMs: int(1, 60000, 100),
    /** How long the RMCP pongs of a batch are collected. */
    rmcpWindowMs: int(0, 10000, 500),
    /** Credentials tried per device at most (AMT locks out after 10 failures). */
    credentialAttemptsPerDevice: int(1, 9, 3),
    /**
     * A scan's own cap on devices read at once. Within it the device gate admits reads by what they
     * cost (plugins/devices/gate/device-admission.ts), up to `deviceConnections`, one connection per device.
     */
    interrogationConcurrency: int(1, 65536, 1024),
    /** Total time for one WS-Management request. */
    requestTimeoutMs: int(100, 120000, 10000),
    /** Finished scans kept in the history. */
    historySize: int(1, 10000, 200),
  }),
  /** @deprecated: `plugins.devices.options.deviceConnections` (applied to the devices plugin when set here). */
  deviceConnections: bare({ minimum: 1, maximum: 65536 }),
  /** @deprecated: `plugins.devices.options.signIn` (applied to the devices plugin when set here). */
  signIn: Type.Optional(
    Type.Object(
      { lockoutThreshold: bare({ minimum: 2, maximum: 1000 }), safetyMargin: bare({ minimum: 1, maximum: 999 }), lockoutPauseSeconds: bare({ minimum: 1, maximum: 86400 }) },
      { additionalProperties: false },
    ),
  ),
});

export type RestApiConfig = Static<typeof REST_API_CONFIG_SCHEMA>;
