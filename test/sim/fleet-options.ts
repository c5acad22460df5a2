/** Options of a simulated fleet, their defaults, and the per-device configuration derived from them. */
import { fleetAddresses } from './address-range.js';
import type { CiraOptions } from './cira-client.js';
import { FIRMWARE_VERSIONS, deviceIdentity, SeededBytes } from './device-identity.js';

export type ProvisioningState = 0 | 1 | 2;
/**
 * `not-soap`: the device signs in normally (a valid Digest exchange) and then answers 200 with an HTML
 * page instead of a SOAP envelope; the others act before any sign-in.
 */
/**
 * `no-auth`: answers /wsman without ever asking for Digest (an impostor that skips authentication);
 * `refuse-all`: answers every /wsman request with a Digest 401, whatever it carries (an impostor
 * that collects Digest responses and makes the gateway believe its credentials are wrong).
 */
export type Misbehaviour = 'none' | 'stall' | 'garbage' | 'oversized' | 'endless-chunks' | 'not-soap' | 'no-auth' | 'refuse-all' | 'empty-put-answers';
export type CertificateName = 'a' | 'b';
export type TlsVersion = 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';

export interface FleetOptions {
  /** Number of devices. */
  count: number;
  /** First device address; the others follow consecutively (skipping .0 and .255). Default 127.0.9.1. */
  base?: string;
  /** Default 16992. */
  httpPort?: number;
  /** Default 16993. */
  httpsPort?: number;
  /** UDP presence port; 0 disables RMCP. Default 623 (needs privileges; tests use e.g. 16623). */
  rmcpPort?: number;
  /** Every Nth device (index % N === N - 1) listens on TLS; 1 = all, 0 = none (default 0). */
  tlsEvery?: number;
  /** TLS devices also listen on the HTTP port (default false: like AMT with TLS, 16992 stays closed). */
  httpOnTlsDevices?: boolean;
  /**
   * Highest TLS version the TLS devices speak (default: node's, TLS 1.3). `TLSv1` or `TLSv1.1` makes
   * them old firmware (AMT 9-11) that offers only that version, at OpenSSL security level 0.
   */
  tlsMaxVersion?: TlsVersion;
  /** Default `admin`. */
  username?: string;
  /** Default `P@ssw0rd1`. */
  password?: string;
  /** Password of the devices selected by `altPasswordEvery` (default `Other-P@ss2`). */
  altPassword?: string;
  /** Every Nth device (index % N === N - 1) uses `altPassword`; 0 = none (default 0). */
  altPasswordEvery?: number;
  /** Provisioning states assigned in turn (default `[2]`: all post-provisioning). */
  provisioningStates?: ProvisioningState[];
  /** Provisioning modes of provisioned devices assigned in turn: 1 ACM, 4 CCM (default `[1, 4]`). */
  provisioningModes?: number[];
  /** Initial DMTF power state (default 2, on). */
  powerState?: number;
  /** Seed of hostnames, UUIDs, realms and firmware versions (default 1). */
  seed?: string | number;
  /** Hostname prefix (default `amt-sim`): hostnames are `{prefix}-0001` upward. */
  hostnamePrefix?: string;
  /** Domain name every device reports (default `sim.example`). */
  domain?: string;
  /** Firmware versions to draw from (major.minor.hotfix.build). */
  firmwareVersions?: string[];
  /** Most items per Pull, whatever MaxElements asks (default 100); small values force multi-page Pulls. */
  pageSize?: number;
  /** Records in each device's event log (default 24). */
  eventLogRecords?: number;
  /** Failed logins in a row that lock a device out (default 10). */
  lockoutThreshold?: number;
  /** First lockout duration, doubled under continued failures up to 16x (default 5,000 ms). */
  lockoutMs?: number;
  /** Lifetime of a Digest nonce (default 300,000 ms). */
  nonceTtlMs?: number;
  /** Approximate bytes per write of a chunked response (default 200); boundaries fall mid-element. */
  chunkSize?: number;
  /** Listeners bound concurrently while starting (default 200). */
  bindConcurrency?: number;
  /** Redirection port (SOL/KVM) of devices on HTTP; default 16994; null: none. */
  redirectionPort?: number | null;
  /** Redirection port with TLS of TLS devices; default 16995; null: none. */
  redirectionTlsPort?: number | null;
  /** A KVM session without keyboard or mouse input is closed after this (default 180,000 ms, as AMT). */
  kvmIdleMs?: number;
  /** A SOL session whose client sends nothing, not even heartbeats, is closed after this (default 10,000 ms). */
  solIdleMs?: number;
  /** A displayed consent code no one enters expires after this (default 300,000 ms). */
  consentTimeoutMs?: number;
  /** The gateway's CIRA listener and MPS account: the devices chosen by `ciraEvery` dial in over CIRA. */
  cira?: CiraOptions;
  /** With `cira`: every Nth device (index % N === N - 1) dials in; default 1 (all). */
  ciraEvery?: number;
  /** CIRA devices also listen on the LAN (default false: reachable only through their tunnel). */
  ciraLan?: boolean;
  /** CIRA devices first dial spread evenly over this many ms (default 0: all at once), as a real fleet powers on. */
  ciraRampMs?: number;
  /**
   * Field latency: every HTTP response of a device leaves after a delay drawn once per device from this
   * range (deterministic from the seed and the device's index). `true` is AMT firmware's 50-400 ms;
   * default none.
   */
  responseDelayMs?: boolean | readonly [number, number];
  /**
   * Answers a Get of `CIM_AssociatedPowerManagementService` with its one instance, as OpenStack Ironic's
   * AMT driver reads it (default true); false: a Fault, the state read only through the enumeration of
   * `CIM_ServiceAvailableToElement`.
   */
  powerAssociationGet?: boolean;
}

/** AMT firmware answers each HTTP request after 50-400 ms. */
export const FIELD_RESPONSE_DELAY_MS: readonly [number, number] = [50, 400];

export interface DeviceConfig {
  index: number;
  address: string;
  hostname: string;
  domain: string;
  uuid: string;
  firmwareVersion: string;
  realm: string;
  serial: string;
  username: string;
  password: string;
  passwordId: 'default' | 'alt';
  provisioningState: ProvisioningState;
  provisioningMode: number;
  powerState: number;
  tls: boolean;
  /** Highest TLS version served; null: node's default. */
  tlsMaxVersion: TlsVersion | null;
  httpPort: number | null;
  httpsPort: number | null;
  rmcpPort: number | null;
  pageSize: number;
  eventLogRecords: number;
  lockoutThreshold: number;
  lockoutMs: number;
  nonceTtlMs: number;
  chunkSize: number;
  /** Redirection ports: plain (16994) on HTTP devices, TLS (16995) on TLS devices; null where closed. */
  redirectionPort: number | null;
  redirectionTlsPort: number | null;
  redirectionTimeouts: { kvmIdleMs: number; solIdleMs: number; consentTimeoutMs: number };
  /** How this device dials in over CIRA, or null. */
  cira: CiraOptions | null;
  /** When, after start, the device first dials in. */
  ciraStartDelayMs: number;
  /** Delay before each HTTP response (0: none). */
  responseDelayMs: number;
  /** Whether a Get of `CIM_AssociatedPowerManagementService` is answered. */
  powerAssociationGet: boolean;
}

function responseDelay(option: FleetOptions['responseDelayMs'], seed: string | number, index: number): number {
  if (!option) return 0;
  const [min, max] = option === true ? FIELD_RESPONSE_DELAY_MS : option;
  const low = Math.max(0, Math.min(min, max));
  const high = Math.max(low, min, max);
  return low + new SeededBytes(`${seed}/delay/${index}`).int(Math.floor(high - low) + 1);
}

function every(n: number | undefined, index: number): boolean {
  return !!n && n > 0 && index % n === n - 1;
}

/** Expands fleet options into one configuration per device. */
export function deviceConfigs(options: FleetOptions): DeviceConfig[] {
  const count = Math.max(0, Math.floor(options.count));
  const addresses = fleetAddresses(options.base ?? '127.0.9.1', count);
  const states = options.provisioningStates?.length ? options.provisioningStates : [2 as ProvisioningState];
  const modes = options.provisioningModes?.length ? options.provisioningModes : [1, 4];
  const firmware = options.firmwareVersions?.length ? options.firmwareVersions : [...FIRMWARE_VERSIONS];
  const seed = options.seed ?? 1;
  const rmcpPort = options.rmcpPort ?? 623;
  return addresses.map((address, index) => {
    const id = deviceIdentity(seed, index, options.hostnamePrefix ?? 'amt-sim', firmware);
    const tls = every(options.tlsEvery, index);
    const alt = every(options.altPasswordEvery, index);
    const state = states[index % states.length]!;
    const cira = options.cira && every(options.ciraEvery ?? 1, index) ? options.cira : null;
    const lan = !cira || !!options.ciraLan;
    return {
      index,
      address,
      ...id,
      domain: options.domain ?? 'sim.example',
      username: options.username ?? 'admin',
      password: alt ? (options.altPassword ?? 'Other-P@ss2') : (options.password ?? 'P@ssw0rd1'),
      passwordId: alt ? 'alt' : 'default',
      provisioningState: state,
      provisioningMode: state === 0 ? 0 : modes[new SeededBytes(`${seed}/mode/${index}`).int(modes.length)]!,
      powerState: options.powerState ?? 2,
      tls,
      tlsMaxVersion: options.tlsMaxVersion ?? null,
      httpPort: lan && (!tls || options.httpOnTlsDevices) ? (options.httpPort ?? 16992) : null,
      httpsPort: lan && tls ? (options.httpsPort ?? 16993) : null,
      rmcpPort: lan && rmcpPort > 0 ? rmcpPort : null,
      redirectionPort: lan && (!tls || options.httpOnTlsDevices) && options.redirectionPort !== null ? (options.redirectionPort ?? 16994) : null,
      redirectionTlsPort: lan && tls && options.redirectionTlsPort !== null ? (options.redirectionTlsPort ?? 16995) : null,
      redirectionTimeouts: { kvmIdleMs: options.kvmIdleMs ?? 180_000, solIdleMs: options.solIdleMs ?? 10_000, consentTimeoutMs: options.consentTimeoutMs ?? 300_000 },
      pageSize: Math.max(1, options.pageSize ?? 100),
      eventLogRecords: Math.max(0, options.eventLogRecords ?? 24),
      lockoutThreshold: options.lockoutThreshold ?? 10,
      lockoutMs: options.lockoutMs ?? 5_000,
      nonceTtlMs: options.nonceTtlMs ?? 300_000,
      chunkSize: Math.max(16, options.chunkSize ?? 200),
      cira,
      ciraStartDelayMs: cira && count > 0 ? Math.floor(((options.ciraRampMs ?? 0) * index) / count) : 0,
      responseDelayMs: responseDelay(options.responseDelayMs, seed, index),
      powerAssociationGet: options.powerAssociationGet ?? true,
    };
  });
}
