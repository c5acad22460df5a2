/**
 * Inputs, outputs and progress messages of the device tasks, and their registration in
 * {@link WorkerTasks} so that `pool.run('probe-batch', input, { onProgress })` is typed.
 * Everything here is structured-clone-able. Device failures come back as data (`error: AmtFailure`),
 * never as a rejected task.
 */
import type { AmtFailure } from '../amt/errors.js';
import type { DeviceChannel, DeviceTarget, TaskCredential, TlsTrustInput } from '../amt/device-target.js';
import type { DigestCarry, OperationMeta } from '../amt/device-operation.js';
import type { TransportTimeouts } from '../amt/http-transport.js';
import type { RmcpPong } from '../amt/rmcp-codec.js';
import type { ProvisioningModeName, ProvisioningStateName } from '../amt/reads/provisioning.js';

export type { AmtFailure, AmtErrorCode } from '../amt/errors.js';
export type { DeviceTarget, TaskCredential, TlsTrustInput } from '../amt/device-target.js';
export type { DigestCarry, OperationMeta } from '../amt/device-operation.js';
export type * from '../device-tasks/device-task-types.js';
export type { TransportTimeouts } from '../amt/http-transport.js';
export type { RmcpPong } from '../amt/rmcp-codec.js';
export type { EventRecord } from '../amt/reads/event-record.js';
export type { HardwareInventory, InventoryItem, ClassInventory } from '../amt/reads/hardware-inventory.js';
export type { HardwareSummary } from '../amt/reads/hardware-summary.js';
export type { RedirectionFeatures, FeatureChange, OptInAction } from '../amt/reads/redirection-features.js';
export type { BootTarget } from '../amt/reads/boot-setting.js';

/** Ports of a site: defaults http 16992, https 16993, rmcp 623 (0 disables the RMCP ping). */
export interface SitePorts {
  http?: number;
  https?: number;
  rmcp?: number;
}

// ---------------------------------------------------------------------------------------------
// probe-batch

export interface ProbeBatchInput {
  /** IPv4/IPv6 addresses to probe (RMCP is IPv4 only). */
  addresses: string[];
  ports?: SitePorts;
  /**
   * TCP connect bound per probe (default 1,000 ms): the timeout before any round trip of the scan was
   * measured, and the most it ever is; measured round trips bring it down to SRTT + 4 × RTTVAR.
   */
  connectTimeoutMs?: number;
  /** The least a probe timeout adapts down to (default 100 ms, as nmap's). */
  minTimeoutMs?: number;
  /** The scan's shared round-trip state (`createRttState()`), so every batch learns from every answer. */
  rtt?: Int32Array;
  /** TCP probes (sockets) in flight at most (default 128). */
  concurrency?: number;
  /** New TCP probes per second at most (default 0: unpaced). */
  ratePerSecond?: number;
  /** RMCP pacing: sub-batches of `batchSize` (50) every `batchGapMs` (10), listening `windowMs` (1,000) after the last. */
  rmcp?: { batchSize?: number; batchGapMs?: number; windowMs?: number; recvBufferBytes?: number };
  /** Progress period (default 100 ms). */
  progressIntervalMs?: number;
  /** The device gate's turn table (its shared memory): each address is probed within its turn, never beside another connection of the gateway. */
  turns?: SharedArrayBuffer;
}

/** An address that answered on a management port or to the presence ping. */
export interface ProbeCandidate {
  address: string;
  /** Ports that answered, ascending: TCP ports that accepted a connection, and the RMCP port if it ponged. */
  openPorts: number[];
  /** The decoded presence pong, when one came. */
  pong: RmcpPong | null;
  /**
   * Set on a candidate released before its batch ended without a pong: one may still come within the
   * batch's collection window, and the batch's final list (or a later release) has the last word.
   */
  pongPending?: true;
}

export interface ProbeBatchOutput {
  /** Addresses fully probed (all of them unless cancelled). */
  probed: number;
  candidates: ProbeCandidate[];
  cancelled: boolean;
  elapsedMs: number;
  /** TCP probes decided (answered, refused or timed out). */
  probesDecided: number;
  /** The adaptive probe timeout at the end of the batch. */
  timeoutMs: number;
  /** Times sockets ran short (EMFILE, no local port) and in-flight was lowered; probes were retried. */
  socketShortages: number;
}

export interface ProbeBatchProgress {
  /** Addresses whose every port is decided. */
  probed: number;
  total: number;
  /** Candidates found so far. */
  found: number;
  /** TCP probes decided so far, of `probesTotal` (addresses × TCP ports): moves while addresses wait out silence. */
  probesDecided: number;
  probesTotal: number;
  /**
   * Candidates complete since the last message (TCP probes done; `pongPending` when their pong has
   * not come yet), so that they can be read before the batch ends; one whose pong came later is sent
   * again with it, and the output lists them all with their final ports and pong.
   */
  candidates?: ProbeCandidate[];
}

// ---------------------------------------------------------------------------------------------
// interrogate

export type AuthStatus = 'ok' | 'unauthorized' | 'unreachable' | 'error';

export interface InterrogateInput {
  address: string;
  ports?: SitePorts;
  /** true: TLS port; false: HTTP port; 'auto' (default): TLS when `openPorts` has only the TLS port. */
  tls?: boolean | 'auto';
  /** Ports the probe found open, for `tls: 'auto'`. */
  openPorts?: number[];
  /**
   * The one credential to sign in with (unsealed by the main thread for this task only; its
   * `maxFailedLogins` bounds the failed logins the task may cause), or null to read only what the
   * device tells without one. Which credential, and whether to try another, is the device gate's decision.
   */
  credential: TaskCredential | null;
  timeouts?: Partial<TransportTimeouts>;
  maxResponseBytes?: number;
  tlsTrust?: TlsTrustInput;
  pinnedFingerprint?: string | null;
  /** Reach the device through this (its CIRA tunnel) rather than `address`; only for in-process runs. */
  channel?: DeviceChannel;
  /** Also read the platform UUID (default true). */
  readUuid?: boolean;
}

/** The scan reads of one device; fields are null where unknown. */
export interface InterrogateOutput {
  address: string;
  port: number;
  tls: boolean;
  authStatus: AuthStatus;
  /** The credential that worked. */
  credentialId: string | null;
  /** Credentials tried. */
  attempts: number;
  /** Credentials the device refused (401), in the order tried. */
  refusedCredentialIds: string[];
  /** Failed logins caused on the device (401s to signed requests), for the sign-in memory. */
  failedLogins: number;
  /** From `CIM_SoftwareIdentity`; without credentials, from the `Server` header. */
  firmwareVersion: string | null;
  /** From the `Server` header (any response, a 401 included). */
  serverVersion: string | null;
  provisioningState: number | null;
  provisioningStateName: ProvisioningStateName | null;
  provisioningMode: number | null;
  provisioningModeName: ProvisioningModeName | null;
  hostname: string | null;
  domain: string | null;
  digestRealm: string | null;
  uuid: string | null;
  /** The certificate fingerprint observed (TLS only), for the main thread to pin on first contact. */
  tlsFingerprint: string | null;
  /** The TLS version negotiated (TLS only): `TLSv1`/`TLSv1.1` only under the devices plugin's `legacyTls`, which the main thread logs. */
  tlsProtocol: string | null;
  roundTrips: number;
  elapsedMs: number;
  /** Why the device could not be read (unreachable, unauthorized, timeout, pin mismatch, ...). */
  error: AmtFailure | null;
  /** Reads that failed on an otherwise readable device (e.g. a class the firmware lacks). */
  readErrors: { [read in 'firmware' | 'provisioning' | 'generalSettings' | 'uuid']?: AmtFailure };
}

// ---------------------------------------------------------------------------------------------
// per-device operations

export interface DeviceOperationInput {
  target: DeviceTarget;
  credential: TaskCredential;
}

/** The `device-task` pool task: one device operation (all its steps) on one connection, signed in as the gate chose. */
export interface DeviceTaskRunInput extends DeviceOperationInput {
  /** The Digest session the gate kept from the device's last operation with this credential, or null. */
  digest: DigestCarry | null;
  /** A built-in device task's name (workers/device-tasks), or the file URL of one a plugin registered. */
  task: string;
  input: unknown;
}

export type DeviceTaskRunOutput = (({ ok: true; value: unknown } | { ok: false; error: AmtFailure }) & OperationMeta) & {
  /** The Digest session the operation ended on, for the device's next operation; null when none. */
  digest: DigestCarry | null;
};

// ---------------------------------------------------------------------------------------------
// wsman-check (GET /api/test/test-wsman)

export interface WsmanCheckInput {
  address: string;
  ports?: SitePorts;
  /** With a credential the check signs in and reads the three scan items; without, it reads the Server header. */
  credential?: TaskCredential | null;
  timeouts?: Partial<TransportTimeouts>;
  maxResponseBytes?: number;
  tlsTrust?: TlsTrustInput;
  pinnedFingerprint?: string | null;
  /** Reach the device through this (its CIRA tunnel) rather than `address`; only for in-process runs. */
  channel?: DeviceChannel;
}

export interface WsmanCheckOutput {
  ipAddress: string;
  reachable: boolean;
  /** The port that answered (HTTP tried first, then TLS); null when neither did. */
  port: number | null;
  tls: boolean;
  authenticated: boolean;
  firmwareVersion: string | null;
  serverVersion: string | null;
  provisioningState: ProvisioningStateName | null;
  hostname: string | null;
  tlsFingerprint: string | null;
  /** The TLS version negotiated (TLS only). */
  tlsProtocol: string | null;
  /** Failed logins the check caused (401s to signed requests), for the sign-in memory. */
  failedLogins: number;
  elapsedMs: number;
  error?: AmtFailure;
}

declare module '../task-api.js' {
  interface WorkerTasks {
    'probe-batch': { input: ProbeBatchInput; output: ProbeBatchOutput; progress: ProbeBatchProgress };
    interrogate: { input: InterrogateInput; output: InterrogateOutput; progress: never };
    'device-task': { input: DeviceTaskRunInput; output: DeviceTaskRunOutput; progress: never };
    'wsman-check': { input: WsmanCheckInput; output: WsmanCheckOutput; progress: never };
  }
}
