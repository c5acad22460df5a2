/**
 * An unprovisioned machine's firmware as activation sees it: its control mode, the nonce it hands out
 * for AdminSetup, the provisioning chain being added, the root hashes it trusts, the accounts it signs
 * in, and what the server wrote for CIRA. The reads that do not change with activation (general
 * settings, software identity, power, redirection) are the fleet simulator's (`device`), kept in step.
 */
import { randomBytes, type X509Certificate } from 'node:crypto';
import { createDeviceState, type DeviceState } from '../device-state.js';
import type { DeviceConfig } from '../fleet-options.js';
import { FirmwareDigest } from './firmware-digest.js';

export interface FirmwareOptions {
  index: number;
  /** The machine's loopback address (its LMS listens there; its CIRA tunnel leaves from there). */
  address: string;
  uuid: string;
  hostname: string;
  /** The DNS suffix the machine's network gives it (admin control mode matches domains by it). */
  dnsSuffix: string;
  /** major.minor.hotfix.build */
  firmwareVersion: string;
  realm: string;
  serial: string;
  /** The local system account the agent reads over HECI. */
  localAccount: { username: string; password: string };
  /** Hashes (hex) of the roots the firmware trusts for provisioning certificates. */
  trustedRootHashes: string[];
  responseDelayMs: number;
  /** Detection strings the firmware starts with (factory: none). */
  detectionStrings: string[];
  /** Answers nothing to a successful AdminSetup (some firmware ends the session then). */
  dropAfterAdminSetup: boolean;
  /** Only TLS local management (AMT 19+): the agent says so. */
  tlsEnforced: boolean;
  seed: string;
}

export interface MpServer {
  name: string;
  accessInfo: string;
  infoFormat: number;
  port: number;
  username: string;
  password: string;
  commonName: string;
}

export interface PolicyRule {
  name: string;
  trigger: number;
  tunnelLifeTime: number;
  extendedData: string;
  /** The MPS entry the rule applies to, and how (0 external, 1 internal, 2 both; external when created). */
  server: string;
  mpsType: number;
}

/** What the server wrote for CIRA, all of it cleared by Unprovision. */
export interface CiraWrites {
  trustedRoots: X509Certificate[];
  servers: MpServer[];
  rules: PolicyRule[];
  /** `AMT_UserInitiatedConnectionService.EnabledState` (32768: none). */
  userInitiated: number;
  detectionStrings: string[];
}

/** `CurrentControlMode`: 0 none, 1 client, 2 admin. */
export type ControlMode = 0 | 1 | 2;

export const LOCAL_ACCOUNT_USER = '$$OsAdmin';
export const ADMIN_USER = 'admin';

function deviceConfig(options: FirmwareOptions): DeviceConfig {
  return {
    index: options.index,
    address: options.address,
    hostname: options.hostname,
    domain: options.dnsSuffix,
    uuid: options.uuid,
    firmwareVersion: options.firmwareVersion,
    realm: options.realm,
    serial: options.serial,
    username: ADMIN_USER,
    password: '',
    passwordId: 'default',
    provisioningState: 0,
    provisioningMode: 4,
    powerState: 2,
    tls: false,
    tlsMaxVersion: null,
    httpPort: null,
    httpsPort: null,
    rmcpPort: null,
    pageSize: 100,
    eventLogRecords: 4,
    lockoutThreshold: 10,
    lockoutMs: 5000,
    nonceTtlMs: 300_000,
    chunkSize: 512,
    redirectionPort: null,
    redirectionTlsPort: null,
    redirectionTimeouts: { kvmIdleMs: 180_000, solIdleMs: 60_000, consentTimeoutMs: 300_000 },
    cira: null,
    ciraStartDelayMs: 0,
    responseDelayMs: options.responseDelayMs,
    powerAssociationGet: true,
  };
}

export class FirmwareState {
  controlMode: ControlMode = 0;
  /** `ConfigurationNonce`: what AdminSetup's signature must cover, new after each AdminSetup and Unprovision. */
  configurationNonce = randomBytes(20);
  /** Certificates added with AddNextCertInChain since the last leaf, in order. */
  chain: X509Certificate[] = [];
  chainComplete = false;
  mebxPassword: string | null = null;
  /** Seconds the firmware's clock is off from the host's. */
  clockOffsetSeconds = 0;
  lastTa0: number | null = null;
  cira: CiraWrites;
  /** Why the firmware refused each call it refused, in order (tests read them). */
  readonly refusals: string[] = [];
  /** Requests by action (the last path segment), for counting what a server sent. */
  readonly calls = new Map<string, number>();
  readonly digest: FirmwareDigest;
  /** The fleet simulator's device, answering the reads activation does not change. */
  readonly device: DeviceState;
  readonly #config: DeviceConfig;

  constructor(readonly options: FirmwareOptions) {
    this.digest = new FirmwareDigest({ realm: options.realm, lockoutThreshold: 10, lockoutMs: 5000, nonceTtlMs: 300_000 });
    this.digest.setAccount(options.localAccount.username, { password: options.localAccount.password });
    this.#config = deviceConfig(options);
    this.device = createDeviceState(this.#config, options.seed);
    this.cira = this.#factoryCira();
  }

  #factoryCira(): CiraWrites {
    return { trustedRoots: [], servers: [], rules: [], userInitiated: 32768, detectionStrings: [...this.options.detectionStrings] };
  }

  /** Moves to a control mode, keeping the simulator's provisioning state and consent policy in step. */
  setControlMode(mode: ControlMode): void {
    this.controlMode = mode;
    const config = this.#config as { provisioningState: number; provisioningMode: number };
    config.provisioningState = mode === 0 ? 0 : 2;
    config.provisioningMode = mode === 2 ? 1 : 4;
    // Client control mode asks consent for everything and the policy is fixed; admin control mode may change it.
    if (mode === 1) this.device.redirection.setClientControlMode();
    else this.device.redirection.optInPolicyFixed = false;
  }

  /** Unprovision: back to pre-provisioning, every setting the server made gone. */
  unprovision(): void {
    this.setControlMode(0);
    this.digest.removeAccount(ADMIN_USER);
    this.mebxPassword = null;
    this.chain = [];
    this.chainComplete = false;
    this.configurationNonce = randomBytes(20);
    this.cira = this.#factoryCira();
  }

  refuse(why: string): void {
    this.refusals.push(why);
  }

  /** The clock as the firmware reads it, in seconds since 1970. */
  now(): number {
    return Math.round(Date.now() / 1000) + this.clockOffsetSeconds;
  }
}
