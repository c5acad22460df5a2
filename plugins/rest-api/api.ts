/**
 * Public types of the `rest-api` plugin: the contract's Device, Scan and Credential shapes, the
 * services it provides (`devices`, `credentials`, `deviceAccess`) and the scan events it publishes.
 * Other plugins import these as types only and reach the services through `ctx.use(...)`.
 */
import type { AmtFailure, DeviceOperationInput, TaskCredential } from '../../workers/tasks/task-types.js';
export type ProvisioningState = 'PRE' | 'IN' | 'POST';
export type AuthStatus = 'ok' | 'unauthorized' | 'unreachable' | 'error';

export interface Device {
  id: string;
  ipAddress: string;
  hostname: string | null;
  /** Domain name from AMT_GeneralSettings, when known. */
  domain?: string | null;
  firmwareVersion: string | null;
  provisioningState: ProvisioningState | null;
  provisioningMode?: 'ACM' | 'CCM' | null;
  uuid?: string | null;
  tls: boolean;
  /** SHA-256 fingerprint of the device's TLS certificate pinned on first contact. */
  tlsFingerprint?: string | null;
  openPorts: number[];
  authStatus: AuthStatus;
  credentialId?: string | null;
  online: boolean;
  firstSeen: string;
  lastSeen: string;
  lastScanId: string | null;
}

export type ScanStatus = 'running' | 'completed' | 'cancelled' | 'failed' | 'interrupted';

export interface Scan {
  id: string;
  range: string;
  status: ScanStatus;
  total: number;
  scanned: number;
  found: number;
  startedAt: string;
  finishedAt?: string;
  error?: string;
}

export interface ScanProgressEvent {
  scanId: string;
  scanned: number;
  total: number;
  found: number;
  percent: number;
}

export interface Credential {
  id: string;
  name: string;
  username: string;
  isDefault: boolean;
  createdAt: string;
  updatedAt: string;
}

/** A credential with its password unsealed, for one device task; never logged or returned. */
export interface UnsealedCredential {
  id: string;
  username: string;
  password: string;
}

export interface DeviceFilter {
  q?: string;
  provisioningState?: ProvisioningState;
  online?: boolean;
}

/**
 * The device list, provided as the `devices` service. What it hands out is read-only and frozen at
 * runtime (devices, their `openPorts`, the list): an update replaces a device, never changes it in
 * place, so a plugin holding one cannot disturb the registry's order or its encoded pages.
 */
export interface DeviceRegistry {
  get(id: string): Readonly<Device> | undefined;
  /** Devices in address order, filtered. The array is frozen too: copy it to sort or change it. */
  list(filter?: DeviceFilter): ReadonlyArray<Readonly<Device>>;
  count(): number;
  /** Applies a partial update (e.g. online state); returns the updated device or undefined if unknown. */
  update(id: string, patch: Partial<Omit<Device, 'id'>>): Promise<Readonly<Device> | undefined>;
}

/** The credential vault, provided as the `credentials` service. */
export interface CredentialVault {
  /** Credentials in sign-in order: the default first, then the others by creation time. */
  list(): Credential[];
  /** Unseals one credential for a device task (main thread only). */
  unseal(id: string): Promise<UnsealedCredential>;
  /** The credentials to try, in order: `preferredId` alone when given, else default first. */
  signInOrder(preferredId?: string): Promise<UnsealedCredential[]>;
}

/** What every device task returns: its value or a failure, and the certificate it saw. */
export type TaskOutcome = ({ ok: true } | { ok: false; error: AmtFailure }) & { tlsFingerprint: string | null };

export interface DeviceAccessOptions {
  connectTimeoutMs: number;
  requestTimeoutMs: number;
  /** Credentials tried at most per operation (AMT locks out repeated failures). */
  credentialAttempts: number;
}

/** Runs device operations (pool tasks) with a working credential, pinning and learning as scans do. */
export interface DeviceAccess {
  /**
   * Runs `operation` against `device` with its known working credential first, then the others in
   * sign-in order, or with `credential` alone when given (a follow-up of an earlier operation).
   * @returns the successful outcome and the credential that worked.
   * @throws HttpError 409 offline or no credential stored, 502 refused or failed, 504 timeout.
   */
  run<R extends TaskOutcome>(
    device: Readonly<Device>,
    operation: (input: DeviceOperationInput) => Promise<R>,
    credential?: TaskCredential,
  ): Promise<{ value: Extract<R, { ok: true }>; credential: TaskCredential }>;
}

/** The `deviceAccess` service: device operations with the caller's time and attempt bounds. */
export interface DeviceAccessFactory {
  create(options: DeviceAccessOptions): DeviceAccess;
  /** OpenAPI responses for the problems `run` throws, for routes that run device operations. */
  readonly problemResponses: Record<number, { description: string }>;
}

/** A scan found a device (new or known). */
export interface DeviceDiscoveredEvent {
  scanId: string;
  device: Readonly<Device>;
}

/** A device was deleted from the list. */
export interface DeviceRemovedEvent {
  deviceId: string;
}

declare module '../../core/plugin-api.js' {
  interface GatewayEvents {
    ScanStarted: Scan;
    ScanProgress: ScanProgressEvent;
    DeviceDiscovered: DeviceDiscoveredEvent;
    ScanCompleted: Scan;
    ScanCancelled: Scan;
    ScanFailed: Scan;
    DeviceRemoved: DeviceRemovedEvent;
  }
  interface GatewayServices {
    devices: DeviceRegistry;
    credentials: CredentialVault;
    deviceAccess: DeviceAccessFactory;
  }
}
