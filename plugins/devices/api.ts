/**
 * Public types of the `devices` plugin (API 2.0): the contract's Device and Credential shapes, the
 * services it provides (`devices`, `credentials`, `devicePresence`, `deviceGate`) and the device events
 * it publishes.
 * Other plugins import these as types only and reach the services through `ctx.use(...)`.
 */
import type { DeviceGate } from './gate-api.js';
export type * from './gate-api.js';
import type { DeviceChannel } from '../../workers/amt/device-target.js';
export type { DeviceChannel } from '../../workers/amt/device-target.js';
export type { AuthStatus, Device, DeviceConnection, ProvisioningState } from './registry/device-schemas.js';
import type { Device, DeviceConnection, ProvisioningState } from './registry/device-schemas.js';

export type { Credential } from './credentials/credential-schemas.js';
import type { Credential } from './credentials/credential-schemas.js';
export type { DeviceSignIn } from './sign-in/sign-in-schemas.js';

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
  /** The device with this id; throws the 404 problem `GW_ERR_DEVICE_NOT_FOUND` when there is none (what a route about one device answers). */
  require(id: string): Readonly<Device>;
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
   * a tunnel found it), or with this id; a tunnel bringing an unknown UUID creates the device at
   * `ipAddress`. Prefer the `devicePresence` service's `report`, which is what paths use.
   * @returns the device (undefined when clearing on an unknown one) and whether `online` flipped.
   */
  setConnection(ref: { uuid: string; ipAddress: string } | { deviceId: string }, kind: DeviceConnection, up: boolean): Promise<{ device: Readonly<Device> | undefined; created: boolean; onlineChanged: boolean }>;
}

/** Which device a path saw: by id, or by the UUID a tunnel named (and the address it came from). */
export type PresenceSubject = { deviceId: string } | { uuid: string; ipAddress: string };

/**
 * Presence, provided as the `devicePresence` service (`presence/`): the one place where what each
 * path saw of a device becomes its `connections`, `online`, `lastSeen` and DeviceStatusChanged.
 * Each way of reaching devices reports what it saw, and only that: the LAN monitor whether the device
 * answered on the local network, the CIRA plugin whether a verified tunnel is up. Scans report
 * through the device record they write (found answering: on the LAN).
 */
export interface DevicePresence {
  /**
   * One path's sighting: `seen` true sets the path in `connections` (and `lastSeen`), false clears it.
   * The device is online while any path has it; a flip of `online` is published as DeviceStatusChanged.
   * @returns the device (undefined when clearing on an unknown one) and whether `online` flipped.
   */
  report(subject: PresenceSubject, path: DeviceConnection, seen: boolean): Promise<{ device: Readonly<Device> | undefined; onlineChanged: boolean }>;
  /**
   * The device a tunnel names by UUID, created at `ipAddress` when unknown: offline (no connection)
   * until a path reports it.
   */
  adopt(subject: { uuid: string; ipAddress: string }): Promise<{ device: Readonly<Device>; created: boolean }>;
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

/**
 * Which service of the device an operation talks to: WS-Management (16992, 16993 with TLS), or
 * redirection (SOL/KVM/IDER: 16994, 16995 with TLS).
 */
export type DeviceService = 'management' | 'redirection';

/** The device ports of redirection, plain and with TLS. */
export const REDIRECTION_PORTS = { plain: 16994, tls: 16995 } as const;

/** The credential vault, provided as the `credentials` service. No password ever leaves it but into the device gate. */
export interface CredentialVault {
  /** Credentials in sign-in order: the default first, then the others by creation time. */
  list(): Credential[];
  /**
   * Whether the stored password of credential `id` opens under the master key (a diagnostic; the
   * password stays in the vault). `reason` says why not, without a secret.
   * @throws the 404 problem `GW_ERR_CREDENTIAL_NOT_FOUND` for an unknown id.
   */
  checkSealed(id: string): Promise<{ unsealed: true } | { unsealed: false; reason: string }>;
  /**
   * Whether `password` is the stored password of credential `id` (compared in constant time inside
   * the vault): how a plugin checks a password it was given against the device's, without the
   * stored one leaving the vault. False for an unknown id.
   */
  passwordMatches(id: string, password: string): Promise<boolean>;
  /** The credential bound to the device with this UUID, if any (see {@link Credential.boundTo}). */
  boundTo(uuid: string): Credential | undefined;
  /** Seals `password` as the credential of the device with this UUID alone, replacing one it had. */
  bind(uuid: string, input: { username: string; password: string }): Promise<Credential>;
  /**
   * `bind`, undoably: `undo()` puts back what the device had before (nothing, or its earlier
   * password, which never leaves the vault), unless another binding came since. For a change the
   * device may refuse: the new password is stored before the device is asked to take it.
   */
  rebind(uuid: string, input: { username: string; password: string }): Promise<{ credential: Credential; undo(): Promise<void> }>;
  /** Forgets the device's own credential; false when it had none. */
  unbind(uuid: string): Promise<boolean>;
}

/** The TLS trust device I/O follows: the mode, the CA bundle read once at start, and whether TLS 1.0/1.1 is accepted. */
export interface DeviceTlsTrust {
  /** `tofu`: pin the certificate on first contact; `ca`: validate against `caPem`. */
  mode: 'tofu' | 'ca';
  caPem?: string;
  legacyTls?: boolean;
}

/** The device settings of the site (`plugins.devices.options`), as the gate applies them; no secret. */
export interface DeviceSettings {
  /** The device ports probed and used (`rmcp` 0: no presence ping). */
  readonly ports: Readonly<{ http: number; https: number; rmcp: number }>;
  /** CIDRs every device path may reach. */
  readonly allowedNetworks: readonly string[];
  readonly tlsTrust: Readonly<DeviceTlsTrust>;
}

/**
 * `ctx.site.amt` as plugins of kernel API 1.0-1.4 read it.
 * @deprecated since kernel API 1.5 (devices plugin 2.0): read `deviceGate.settings`.
 */
export interface AmtSiteSettings {
  ports: { http: number; https: number; rmcp: number };
  allowedNetworks: string[];
  tlsTrust: 'tofu' | 'ca';
  caFile: string | null;
  legacyTls?: boolean;
}

/** A device was deleted from the list. */
export interface DeviceRemovedEvent {
  deviceId: string;
}

/** A device operation (`deviceGate.run`) ended; `operation` is its device task's name, e.g. `power-read`. */
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
  interface SiteSettings {
    /**
     * The site's device settings, while the devices plugin is enabled.
     * @deprecated since kernel API 1.5 (devices plugin 2.0): read `deviceGate.settings`.
     */
    readonly amt: AmtSiteSettings;
    /**
     * The TLS trust device tasks take, while the devices plugin is enabled.
     * @deprecated since kernel API 1.5 (devices plugin 2.0): read `deviceGate.settings.tlsTrust`.
     */
    readonly deviceTls: DeviceTlsTrust;
  }
  interface GatewayEvents {
    DeviceOperationCompleted: DeviceOperationCompletedEvent;
    DeviceSignInFailed: DeviceSignInFailedEvent;
    DeviceSignInPaused: DeviceSignInPausedEvent;
    DeviceRemoved: DeviceRemovedEvent;
  }
  interface GatewayServices {
    devices: DeviceRegistry;
    credentials: CredentialVault;
    deviceGate: DeviceGate;
    devicePresence: DevicePresence;
  }
}
