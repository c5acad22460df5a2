/**
 * Public types of the device gate, the `deviceGate` service of the `devices` plugin (API 2.0): its
 * one call (`run`, a device task by name in one turn of the device), the reads, checks, probes,
 * proofs and sessions that are device I/O of other shapes, and the extension points through which
 * plugins bring ways of reaching devices (paths), turns beyond this gateway, and device tasks.
 * No call hands a credential to a plugin.
 */
import type { CancelToken } from '../../core/pool/worker-pool.js';
import type { DeviceTaskMap } from '../../workers/task-api.js';
import type { InterrogateOutput, ProbeBatchInput, ProbeBatchOutput, ProbeBatchProgress, RmcpPong, WsmanCheckOutput } from '../../workers/tasks/task-types.js';
import type { PresenceSweepInput, PresenceSweepOutput } from '../../workers/tasks/presence-sweep-types.js';
import type { OpenRedirection, RedirectionMode } from '../../workers/amt/redirection/redirection-session.js';
import type { StreamReader } from '../../workers/amt/redirection/stream-reader.js';
import type { WsmanClient } from '../../workers/amt/wsman-client.js';
import type { Duplex } from 'node:stream';
import type { Device, DeviceRoute, DeviceService, DeviceSettings } from './api.js';

export type { DeviceTaskMap, DeviceTaskFunction, DeviceTaskTools, WsmanSession } from '../../workers/task-api.js';
export type { OpenRedirection, RedirectionMode } from '../../workers/amt/redirection/redirection-session.js';

/**
 * What a path offers for one device: a route, and whether the path has proven that what it leads
 * to is this device (e.g. a CIRA tunnel that presented the certificate pinned on the LAN). The gate
 * sends nothing of the device's (no credential, no Digest response, no operation) along an
 * `unverified` offer: such a device is reached on the local network, or not at all. The one thing
 * an unverified offer is used for is the proof that would verify it (`purpose` `proof`).
 */
export type DevicePathOffer = DeviceRoute & { identity: 'proven' | 'unverified' };

/**
 * Why the gate asks a path for a route: an `operation` (WS-Management tasks; a path may open its
 * first channel ahead), a redirection `session` (which opens its own channel later: open none ahead),
 * or a `proof` of identity (a TLS route to the device's TLS management port, 16993, on which the
 * device must present the certificate pinned for it; no channel ahead).
 */
export type DevicePathPurpose = 'operation' | 'session' | 'proof';

/**
 * A way of reaching devices other than their address on the local network (today: CIRA tunnels;
 * next: the activation agent's WebSocket), registered with the device gate by the plugin that owns
 * it: the path provider seam.
 */
export interface DevicePath {
  /** The kind of path, unique gateway-wide (e.g. `cira`); a second registration of a kind is an error. */
  kind: string;
  /** The plugin registering it, named in the clash error. */
  plugin: string;
  /** An offer for `device` and the device service wanted, or null when this path does not reach the device now. */
  reach(device: Readonly<Device>, service: DeviceService, purpose: DevicePathPurpose): Promise<DevicePathOffer | null>;
}

/**
 * A device's turn beyond this gateway (e.g. across the instances of a cluster), registered once by
 * the plugin that brings it (`registerTurnProvider`): the turn provider seam. For every operation the
 * gate takes the device's turn on this gateway first (its operations and the probes of its threads),
 * then this one, and gives them back in reverse order once the operation has closed its connection.
 */
export interface DeviceTurnProvider {
  /** The plugin registering it, named in the clash error. */
  plugin: string;
  /**
   * Takes the turn of `key` (the device's address on the local network, or `device:<id>` for a
   * device reached only through a path); resolves with the function that gives it back. A rejection
   * fails the operation with that error.
   */
  take(key: string): Promise<() => void | Promise<void>>;
}

/** A device task a plugin brings (`registerTask`): run by name like the built-in ones. */
export interface DeviceTaskRegistration {
  /** Unique among device tasks, built-in ones included; a second registration of a name is an error. */
  name: string;
  plugin: string;
  /**
   * The module's URL (`taskFile(import.meta.url, './my-task')` from `amt-gateway/task-api`), default-
   * exporting a `DeviceTaskFunction`: it is handed a signed-in WS-Management session, never the credential.
   */
  file: string;
}

/** The bounds of one `run`, each with the gate's default. */
export interface DeviceRunOptions {
  /** TCP (and TLS) connect bound (default 3,000 ms). */
  connectTimeoutMs?: number;
  /** First byte and whole answer of each request (default 10,000 ms). */
  requestTimeoutMs?: number;
  /** Credentials tried at most (default 3; the device's sign-in memory may allow fewer). */
  credentialAttempts?: number;
  /**
   * `lan`: the device's address on the local network only; a path kind (e.g. `cira`): that path only,
   * else 409 `GW_ERR_DEVICE_NO_PATH`. Default: the first registered path that reaches the device with
   * proven identity, else the local network.
   */
  via?: string;
}

/** The device an operation is for: a stored one, or an address a scan found answering (not stored yet). */
export interface GateSubject {
  address: string;
  device?: Readonly<Device>;
  /** The ports a probe found open (a scan's candidate), for choosing HTTP or TLS. */
  openPorts?: readonly number[];
}

/** What a scan's probes found at an address: the ports that answered (the RMCP port if it ponged) and the pong. */
export interface ProbedAddress {
  openPorts: readonly number[];
  pong: RmcpPong | null;
}

/** A read of a device's scan items (firmware, provisioning, hostname, domain, UUID) through the gate. */
export interface DeviceReadOptions {
  candidates?: readonly string[];
  credentialAttempts: number;
  timeouts: { connectMs: number; firstByteMs: number; totalMs: number };
  readUuid?: boolean;
  /** As {@link DeviceRunOptions.via}; a scan's read is always `lan`. */
  via?: string;
  cancel?: CancelToken;
  /**
   * `scan`: the read is recorded under the scan (creating the device at an address not stored
   * yet, `lan` among its connections); `refresh`: it updates the stored device with what it learnt.
   * A scan may start the read before its probes have the last word on the address (its RMCP pong can
   * come until the batch's window closes): `probed` then gives the ports and pong recorded, awaited
   * once the read is done, outside the device's turn.
   */
  record: { kind: 'scan'; scanId: string; pong?: RmcpPong | null; probed?: PromiseLike<ProbedAddress> } | { kind: 'refresh' };
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
 * What `runAlong` signs in with: a credential the calling plugin holds itself (never one of the
 * vault's), or a stored one named by id (`stored`: the gate unseals it; the plugin never sees it).
 */
export type AlongCredential = { id: string; username: string; password: string } | { stored: string };

/** A diagnostic WS-Management exchange (`check`): with one stored credential, or without any. */
export interface DeviceCheckOptions {
  /** The stored credential to sign in with (unsealed by the gate for this check only); null: none. */
  credentialId: string | null;
  timeouts: { connectMs: number; firstByteMs: number; totalMs: number };
}

export interface DeviceCheckResult {
  /** What the exchange found; with `signedIn` false it was made without a credential. */
  result: WsmanCheckOutput;
  /** The exchange signed in with the credential asked for (its attempt's answer, refused or not). */
  signedIn: boolean;
  /** Why the credential was not tried or did not sign in (the gate's HttpError), else null. */
  problem: unknown;
}

/**
 * What a proof of identity found along a path: `proven`, the device presented the certificate
 * pinned for it on the LAN; `mismatch`, another one; `no-proof`, no pin or no TLS route; `failed`, no
 * TLS answer. The proof sends no credential: an unauthenticated request at most.
 */
export type IdentityProof = 'proven' | 'mismatch' | 'no-proof' | 'failed';

/**
 * A redirection session (SOL, KVM, IDER) opened and signed in by the gate (`openSession`): the
 * credential stays in the gate, the plugin gets the stream and what its mode's set-up returned.
 */
export interface SessionRequest<T> {
  mode: RedirectionMode;
  /** The mode's set-up once signed in (bounded by the handshake's timeout). */
  begin(reader: StreamReader, stream: Duplex): Promise<T>;
  /** Read a plain TCP connection into reused slabs (a KVM screen's megabytes). */
  slabReads?: boolean;
}

/** What the gate's probes of many addresses run: a scan's batch, or the online monitor's sweep. */
export interface ProbeTasks {
  'probe-batch': { input: Omit<ProbeBatchInput, 'turns' | 'ports'>; output: ProbeBatchOutput; progress: ProbeBatchProgress };
  'presence-sweep': { input: Omit<PresenceSweepInput, 'turns' | 'rmcpPort'>; output: PresenceSweepOutput; progress: never };
}

/** A probe of many addresses: its cancellation and progress. */
export interface ProbeOptions<P> {
  cancel?: CancelToken;
  onProgress?: (progress: P) => void;
}

/**
 * The `deviceGate` service: the one place that decides whether the gateway may talk to a device
 * now, with which credential, along which path (plugins/devices/gate/device-gate.ts), and that every
 * device path calls.
 */
export interface DeviceGate {
  /** The devices plugin's API version: `2.0.0` since kernel API 1.5 (gate.run by task name; no credential leaves the gate). */
  readonly apiVersion: string;
  /**
   * Registers a path. @throws a `GW_ERR_DEVICE_PATH_CLASH` error naming both plugins when a path
   * of that kind is registered already.
   */
  registerPath(path: DevicePath): void;
  /** The kinds of path registered, in the order they are asked (the local network, `lan`, is last). */
  pathKinds(): string[];
  /** Registers the turn beyond this gateway. @throws `GW_ERR_DEVICE_TURN_CLASH` naming both plugins for a second one. */
  registerTurnProvider(provider: DeviceTurnProvider): void;
  /** Registers a device task. @throws `GW_ERR_DEVICE_TASK_CLASH` for a name taken (a built-in one included). */
  registerTask(task: DeviceTaskRegistration): void;
  /**
   * The gate's one call: runs device task `task` with `input` against `device`, every step of it in
   * one turn of the device (no other operation or probe of the gateway reaches it meanwhile), on one
   * connection kept alive for the task, signed in with the device's working credential first (then
   * the others its sign-in memory allows), on the Digest session its last operation left (one request
   * fewer). Returns the task's output: what it read, or what it decided (a `refused` value).
   * @throws HttpError 422 outside the allowed networks, 409 offline, no credential stored or sign-ins
   * paused (lockout risk), 502 refused or failed, 504 timeout, 503 when a path's bound is full.
   */
  run<K extends keyof DeviceTaskMap & string>(device: Readonly<Device>, task: K, input: DeviceTaskMap[K]['input'], options?: DeviceRunOptions): Promise<DeviceTaskMap[K]['output']>;
  /**
   * For a path whose channel lives on this thread (a registered path's kind `via`; the activation
   * plugin's agent): runs `operation` here, on one connection, in one pass of the gate along that path,
   * signed in with `credential`: one the calling plugin holds itself (an agent's local account, a
   * password it set), or a stored one named by id. The operation gets the signed-in WS-Management
   * client, not the credential. @throws as `run`; 500 `GW_ERR_DEVICE_PATH_NOT_LOCAL` when the route
   * is no channel (device I/O elsewhere is a device task: `run`).
   */
  runAlong<T>(subject: GateSubject, via: string, credential: AlongCredential, operation: (wsman: WsmanClient) => Promise<T>, options?: { timeouts?: { connectMs: number; firstByteMs: number; totalMs: number } }): Promise<T>;
  /** Reads a device's scan items (one `interrogate` per credential) and merges them into the device record. */
  read(subject: GateSubject, options: DeviceReadOptions): Promise<DeviceReadResult>;
  /** One diagnostic WS-Management exchange (`wsman-check`) with an address or a stored device, within its turn. */
  check(subject: GateSubject, options: DeviceCheckOptions): Promise<DeviceCheckResult>;
  /**
   * Probes many addresses at once (a scan's `probe-batch`, the online monitor's `presence-sweep`) in
   * the worker pool: each address only within its turn (never beside an operation on it), on the
   * site's ports. The caller keeps to the allowed networks (`allows`).
   */
  probe<K extends keyof ProbeTasks>(task: K, input: ProbeTasks[K]['input'], options?: ProbeOptions<ProbeTasks[K]['progress']>): Promise<ProbeTasks[K]['output']>;
  /**
   * Proves along path `via` (even one not proven yet) that it leads to `device`: the certificate
   * pinned for it on the LAN must be presented on the device's TLS management port, within its turn.
   */
  proveIdentity(device: Readonly<Device>, via: string, options?: { timeoutMs?: number }): Promise<IdentityProof>;
  /**
   * Opens a redirection session to `device` and signs in (the redirection port, or a channel of its
   * path), within its turn; the session then runs on its own connection beside the device's management
   * service. @throws as `run`; `GW_ERR_DEVICE_BUSY` a session of that mode is open, `GW_ERR_DEVICE_UNSUPPORTED` the mode is off.
   */
  openSession<T>(device: Readonly<Device>, request: SessionRequest<T>, options?: DeviceRunOptions): Promise<OpenRedirection<T>>;
  /**
   * The stored device `text` names: a device id or UUID selects one (an unknown UUID is 404), an
   * address the one device there or none; an address several devices share is 409 `GW_ERR_TARGET_AMBIGUOUS`.
   * @param path where the text came from, for the problem's `errors`
   */
  deviceNamed(text: string, path: string): Readonly<Device> | undefined;
  /** OpenAPI responses for the problems `run` throws, for routes that run device operations. */
  readonly problemResponses: Readonly<Record<number, { description: string }>>;
  /** The site's device settings: ports, allowed networks, TLS trust. */
  readonly settings: DeviceSettings;
  /**
   * Whether device I/O on the local network may reach `address` (the allowed networks). The gate
   * checks it itself on every path it opens; a caller asks to skip what is outside beforehand.
   */
  allows(address: string): boolean;
  /**
   * The probes in flight each of `maxConcurrentScans` scans may have within `ulimit -n`, beside the
   * gate's device connections (`minimum`: fewer is too few for a useful scan).
   */
  probeBudget(asked: { probesPerScan: number; maxConcurrentScans: number }): ProbeBudget;
  /** Device connections the gate allows at once (`deviceConnections`, lowered to fit `ulimit -n`). */
  readonly deviceConnections: number;
  /**
   * @deprecated only for `rest-api`'s `signIn` and `deviceConnections` options of the releases
   * before the split (now `plugins.devices.options`); call during register, before any device I/O.
   */
  applyDeprecatedOptions(from: string, options: { signIn?: Partial<SignInSettings>; deviceConnections?: number }): void;
}

/** What `probeBudget` allows a scan: probes in flight, within `ulimit -n` (`fileLimit`, null when unknown). */
export interface ProbeBudget {
  fileLimit: number | null;
  probesPerScan: number;
  /** Below this a scan is refused rather than crawl. */
  minimum: number;
  /** Set when the limit lowered something: says what and how to raise it. */
  warning: string | null;
}

/** The sign-in memory's settings (`plugins.devices.options.signIn`). */
export interface SignInSettings {
  /** Failed logins in a row that lock the device's account. */
  lockoutThreshold: number;
  /** Failed logins kept in hand below the threshold (other clients of the device, a late retry). */
  safetyMargin: number;
  /** How long a device that said it is locked is left alone. */
  lockoutPauseSeconds: number;
}
