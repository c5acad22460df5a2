/**
 * Public types of the `devices` plugin: the contract's Device and Credential shapes, the services it
 * provides (`devices`, `credentials`, `deviceAccess`, `deviceGate`) and the device events it publishes.
 * Other plugins import these as types only and reach the services through `ctx.use(...)`.
 */
import type { CancelToken } from '../../core/pool/worker-pool.js';
import type { AmtFailure, DeviceOperationInput, DeviceTarget, InterrogateOutput, RmcpPong, TaskCredential } from '../../workers/tasks/task-types.js';
import type { DeviceChannel } from '../../workers/amt/device-target.js';
export type { DeviceChannel } from '../../workers/amt/device-target.js';
import type { WorkerPool } from '../../core/pool/worker-pool.js';
export type ProvisioningState = 'PRE' | 'IN' | 'POST';
/** `locked-out-risk`: sign-ins are paused so that the device's account is not locked (see the sign-in memory). */
export type AuthStatus = 'ok' | 'unauthorized' | 'unreachable' | 'error' | 'locked-out-risk';
/** How the gateway reaches a device now: on the local network, and/or through its CIRA tunnel. */
export type DeviceConnection = 'lan' | 'cira';

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
  /** How the gateway reaches the device now; `online` is true while it is not empty. */
  connections?: DeviceConnection[];
  firstSeen: string;
  lastSeen: string;
  lastScanId: string | null;
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
  /** The device with this UUID (any case), if known. */
  findByUuid(uuid: string): Readonly<Device> | undefined;
  /**
   * Applies a partial update; returns the updated device or undefined if unknown. A patch of `online`
   * alone is the local network's answer: it sets or clears `lan` in `connections`, and `online`
   * follows all of them.
   */
  update(id: string, patch: Partial<Omit<Device, 'id'>>): Promise<Readonly<Device> | undefined>;
  /**
   * Sets or clears one way of reaching the device with this UUID (the same device whether a scan or
   * a tunnel found it); a tunnel bringing an unknown UUID creates the device at `ipAddress`.
   * @returns the device (undefined when clearing on an unknown one) and whether `online` flipped.
   */
  setConnection(ref: { uuid: string; ipAddress: string }, kind: DeviceConnection, up: boolean): Promise<{ device: Readonly<Device> | undefined; created: boolean; onlineChanged: boolean }>;
}

/** Where to reach a device instead of its address on the local network: another TCP address. */
export interface DeviceAddressRoute {
  address: string;
  port: number;
  tls: boolean;
}

/**
 * A device reached through a channel (an APF channel in its CIRA tunnel). The channel is a live
 * object that cannot cross to a worker thread, so the device's tasks run on the main thread
 * (`WorkerPool.runInProcess`), each inside `schedule`, the router's bound on their share of it.
 */
export interface DeviceChannelRoute {
  /** The device's port the channel leads to (16992, or 16993 with TLS inside the channel). */
  port: number;
  tls: boolean;
  channel: DeviceChannel;
  /** Runs one task within the router's bound (a concurrency limit); rejects with an HttpError (503) when full. */
  schedule<T>(task: () => Promise<T>): Promise<T>;
}

/** Where to reach a device instead of its address on the local network. */
export type DeviceRoute = DeviceAddressRoute | DeviceChannelRoute;

/** Runs the device tasks of one operation where its target can be reached: the worker pool, or in-process for a channel route. */
export type DeviceTasks = Pick<WorkerPool, 'run'>;

/**
 * Which service of the device an operation talks to: WS-Management (16992, 16993 with TLS), or
 * redirection (SOL/KVM/IDER: 16994, 16995 with TLS).
 */
export type DeviceService = 'management' | 'redirection';

/** The device ports of redirection, plain and with TLS. */
export const REDIRECTION_PORTS = { plain: 16994, tls: 16995 } as const;

/**
 * Decides a route for a device and the service an operation wants (default `management`); null:
 * the local network as usual. A route's `port` is that service's port.
 */
export type DeviceRouter = (device: Readonly<Device>, service?: DeviceService) => Promise<DeviceRoute | null>;

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
export type TaskOutcome = ({ ok: true } | { ok: false; error: AmtFailure }) & { tlsFingerprint: string | null; failedLogins?: number; tlsProtocol?: string | null };

export interface DeviceAccessOptions {
  connectTimeoutMs: number;
  requestTimeoutMs: number;
  /** Credentials tried at most per operation (AMT locks out repeated failures). */
  credentialAttempts: number;
  /**
   * The device service the operations talk to (default `management`). With `redirection` the
   * target's port is the redirection port (16994, 16995 with TLS; through a CIRA tunnel a channel to
   * it), and the operation itself opens the session on this thread (`openRedirectionSession`),
   * since the relay that follows outlives the operation and cannot live in a worker: the sign-in
   * memory, networks check, credential order and pinning apply as to every operation.
   */
  service?: DeviceService;
}

/** Runs device operations (pool tasks) with a working credential, pinning and learning as scans do. */
export interface DeviceAccess {
  /**
   * Runs `operation` against `device` with its known working credential first, then the others in
   * sign-in order, or with `credential` alone when given (a follow-up of an earlier operation).
   * @returns the successful outcome and the credential that worked.
   * Every sign-in goes through the sign-in memory (credentials the device refused are not tried
   * again, failed logins stay below its lockout) and the address must be inside the allowed networks.
   * @throws HttpError 422 outside the allowed networks, 409 offline, no credential stored or sign-ins
   * paused (lockout risk), 502 refused or failed, 504 timeout, 503 when the route's bound is full.
   *
   * `operation` runs its task through `tasks` (`tasks.run('power-read', input)`), never `ctx.pool`
   * directly: for a device reached through a channel route (its CIRA tunnel) `input.target` carries
   * the live channel, and `tasks` runs the task in-process within the route's bound.
   */
  run<R extends TaskOutcome>(
    device: Readonly<Device>,
    operation: (input: DeviceOperationInput, tasks: DeviceTasks) => Promise<R>,
    credential?: TaskCredential,
  ): Promise<{ value: Extract<R, { ok: true }>; credential: TaskCredential }>;
}

/** The `deviceAccess` service: device operations with the caller's time and attempt bounds. */
export interface DeviceAccessFactory {
  create(options: DeviceAccessOptions): DeviceAccess;
  /** OpenAPI responses for the problems `run` throws, for routes that run device operations. */
  readonly problemResponses: Record<number, { description: string }>;
  /**
   * Whether device I/O on the local network may reach `address` (`amt.allowedNetworks`). `run`
   * checks it itself for devices it reaches on the local network (a device reached through a route,
   * its CIRA tunnel, is not reached at its address); callers that reach devices otherwise (the
   * online monitor's probes) ask here and skip what is outside.
   */
  allows(address: string): boolean;
  /**
   * Installs the router device operations (and diagnostics) consult first, e.g. for CIRA tunnels.
   * Sign-ins through a route are remembered per device (its UUID), not per address: devices behind
   * one NAT address share the address but not their failed-login counts.
   * @deprecated since kernel API 1.3: register a path with the `deviceGate` service
   * (`registerPath`), which names its owner and refuses a second path of one kind. This shim
   * registers the router as the path kind `router` (a later call replaces it, as before) and
   * treats its routes as proven to lead to the device.
   */
  setRouter(router: DeviceRouter): void;
}

/**
 * What a path offers for one device: a route, and whether the path has proven that what it leads
 * to is this device (e.g. a CIRA tunnel that presented the certificate pinned on the LAN). The gate
 * sends nothing of the device's (no credential, no Digest response, no operation) along an
 * `unverified` offer: such a device is reached on the local network, or not at all.
 */
export type DevicePathOffer = DeviceRoute & { identity: 'proven' | 'unverified' };

/**
 * A way of reaching devices other than their address on the local network (today: CIRA tunnels),
 * registered with the device gate by the plugin that owns it.
 */
export interface DevicePath {
  /** The kind of path, unique gateway-wide (e.g. `cira`); a second registration of a kind is an error. */
  kind: string;
  /** The plugin registering it, named in the clash error. */
  plugin: string;
  /**
   * An offer for `device` and the device service an operation wants, or null when this path does
   * not reach the device now. `purpose` `session`: the route is for a redirection session that
   * opens its own channel later (a path should not open one ahead).
   */
  reach(device: Readonly<Device>, service: DeviceService, purpose: 'operation' | 'session'): Promise<DevicePathOffer | null>;
}

/** The device an operation is for: a stored one, or an address a scan found answering (not stored yet). */
export interface GateSubject {
  address: string;
  device?: Readonly<Device>;
  /** The ports a probe found open (a scan's candidate), for choosing HTTP or TLS. */
  openPorts?: readonly number[];
}

/** The bounds and credentials of one call of the gate. */
export interface GateRunOptions {
  service?: DeviceService;
  /** `session`: a redirection session that opens its own channel later (a path opens none ahead). */
  purpose?: 'operation' | 'session';
  /**
   * `lan`: the device's address on the local network only, whatever other path it has (a scan reads
   * the address it probed); a path kind (e.g. `cira`): that path only, else 409 `GW_ERR_DEVICE_NO_PATH`.
   * Default `any`: the first registered path that reaches the device with proven identity, else the local network.
   */
  via?: string;
  timeouts: DeviceTarget['timeouts'];
  /** This credential alone (a follow-up of an earlier operation, a diagnostic of one credential). */
  credential?: TaskCredential;
  /** Credential ids to choose from (a scan's); default every stored one. */
  candidates?: readonly string[];
  /** Credentials tried at most (the sign-in memory may allow fewer). */
  credentialAttempts: number;
  /**
   * Runs once without a credential when none may be tried (none stored, every one refused earlier,
   * sign-ins paused), to learn what the device tells without one; the problem is thrown after it.
   */
  withoutCredential?: (target: DeviceTarget, tasks: DeviceTasks, path: GatePath) => Promise<unknown>;
}

/** The path the gate chose: `lan` (the device's address on the local network) or a registered path's kind. */
export interface GatePath {
  kind: string;
}

/** A read of a device's scan items (firmware, provisioning, hostname, domain, UUID) through the gate. */
export interface DeviceReadOptions {
  candidates?: readonly string[];
  credentialAttempts: number;
  timeouts: DeviceTarget['timeouts'];
  readUuid?: boolean;
  /** As {@link GateRunOptions.via}; a scan's read is always `lan`. */
  via?: string;
  cancel?: CancelToken;
  /**
   * `scan`: the read is recorded under the scan (creating the device at an address not stored
   * yet, `lan` among its connections); `refresh`: it updates the stored device with what it learnt.
   */
  record: { kind: 'scan'; scanId: string; pong?: RmcpPong | null } | { kind: 'refresh' };
}

export interface DeviceReadResult {
  /** The device as recorded; undefined when nothing was recorded (cancelled, or the device went). */
  device: Readonly<Device> | undefined;
  created: boolean;
  /** The last task's output. */
  output: InterrogateOutput | undefined;
  /** The gate's problem when no credential signed in (an HttpError), else null. */
  problem: unknown;
}

/**
 * The `deviceGate` service: the one place that decides whether the gateway may talk to a device
 * now, with which credential, along which path (plugins/devices/gate/device-gate.ts). Device
 * operations reach it through `deviceAccess`; scans and tunnels read through `read`; plugins that
 * bring a way of reaching devices register it here.
 */
export interface DeviceGate {
  /**
   * Registers a path. @throws a `GW_ERR_DEVICE_PATH_CLASH` error naming both plugins when a path
   * of that kind is registered already.
   */
  registerPath(path: DevicePath): void;
  /** The kinds of path registered, in the order they are asked (the local network, `lan`, is last). */
  pathKinds(): string[];
  /** The gate's one call: path, networks, sign-in plan and memory, credential order, turn, pinning. */
  run<R extends TaskOutcome>(
    subject: GateSubject,
    operation: (input: DeviceOperationInput, tasks: DeviceTasks, path: GatePath) => Promise<R>,
    options: GateRunOptions,
  ): Promise<{ value: Extract<R, { ok: true }>; credential: TaskCredential }>;
  /** Reads a device's scan items through `run`, one credential per task, and merges them into the device record. */
  read(subject: GateSubject, options: DeviceReadOptions): Promise<DeviceReadResult>;
  /**
   * The stored device `text` names: a device id or UUID selects one (an unknown UUID is 404), an
   * address the one device there or none; an address several devices share is 409 `GW_ERR_TARGET_AMBIGUOUS`.
   * @param path where the text came from, for the problem's `errors`
   */
  deviceNamed(text: string, path: string): Readonly<Device> | undefined;
  /** Device connections the gate allows at once (`deviceConnections`, lowered to fit `ulimit -n`). */
  readonly deviceConnections: number;
  /**
   * @deprecated only for `rest-api`'s `signIn` and `deviceConnections` options of the releases
   * before the split (now `plugins.devices.options`); call during register, before any device I/O.
   */
  applyDeprecatedOptions(from: string, options: { signIn?: Partial<SignInSettings>; deviceConnections?: number }): void;
}

/** The sign-in memory's settings (`plugins.devices.options.signIn`). */
export interface SignInSettings {
  lockoutThreshold: number;
  safetyMargin: number;
  lockoutPauseSeconds: number;
}

/** A device was deleted from the list. */
export interface DeviceRemovedEvent {
  deviceId: string;
}

/** A device operation (through `deviceAccess`) ended; `operation` is its first task's name, e.g. `power-read`. */
export interface DeviceOperationCompletedEvent {
  operation: string;
  /** `ok`, or the problem code it ended with (e.g. `GW_ERR_DEVICE_TIMEOUT`). */
  outcome: string;
  durationSeconds: number;
}

/** A sign-in to a device (scan, operation or diagnostic) that caused failed logins or met the device's lockout. */
export interface DeviceSignInFailedEvent {
  failedLogins: number;
  lockedOut: boolean;
}

/** A sign-in to a device was held back to keep its account from locking (locked already, or its failed-login budget spent). */
export interface DeviceSignInPausedEvent {
  reason: 'locked-out' | 'budget-spent';
}

declare module '../../core/plugin-api.js' {
  interface GatewayEvents {
    DeviceOperationCompleted: DeviceOperationCompletedEvent;
    DeviceSignInFailed: DeviceSignInFailedEvent;
    DeviceSignInPaused: DeviceSignInPausedEvent;
    DeviceRemoved: DeviceRemovedEvent;
  }
  interface GatewayServices {
    devices: DeviceRegistry;
    credentials: CredentialVault;
    deviceAccess: DeviceAccessFactory;
    deviceGate: DeviceGate;
  }
}
