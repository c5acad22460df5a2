/**
 * Public types of the device gate (the `deviceGate` service of the `devices` plugin): its one call,
 * its reads, and the extension point through which plugins register ways of reaching devices.
 */
import type { CancelToken } from '../../core/pool/worker-pool.js';
import type { DeviceOperationInput, DeviceTarget, InterrogateOutput, RmcpPong, TaskCredential } from '../../workers/tasks/task-types.js';
import type { Device, DeviceRoute, DeviceService, DeviceSettings, DeviceTasks, TaskOutcome } from './api.js';

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

/** What `probeBudget` allows a scan: probes in flight, within `ulimit -n` (`fileLimit`, null when unknown). */
export interface ProbeBudget {
  fileLimit: number | null;
  probesPerScan: number;
  /** Below this a scan is refused rather than crawl. */
  minimum: number;
  /** Set when the limit lowered something: says what and how to raise it. */
  warning: string | null;
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
  timeouts: DeviceTarget['timeouts'];
  readUuid?: boolean;
  /** As {@link GateRunOptions.via}; a scan's read is always `lan`. */
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

/** The sign-in memory's settings (`plugins.devices.options.signIn`). */
export interface SignInSettings {
  /** Failed logins in a row that lock the device's account. */
  lockoutThreshold: number;
  /** Failed logins kept in hand below the threshold (other clients of the device, a late retry). */
  safetyMargin: number;
  /** How long a device that said it is locked is left alone. */
  lockoutPauseSeconds: number;
}

