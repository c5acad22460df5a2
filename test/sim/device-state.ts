/** The mutable state of one simulated device and its counters. */
import type { CertificateName, DeviceConfig, Misbehaviour } from './fleet-options.js';
import { eventLogRecords } from './sim-event-log.js';
import { SimDigest } from './sim-digest.js';
import type { SimInstance } from './sim-xml.js';
import { RedirectionState } from './redirection/redir-state.js';

/** What a device has seen, for tests to assert on. */
export interface DeviceCounters {
  /** HTTP requests received (any path). */
  requests: number;
  /** Requests that carried an Authorization header. */
  authAttempts: number;
  /** 401 responses sent. */
  unauthorized: number;
  /** Failed logins (wrong user/password/response), lockout refusals excluded. */
  authFailures: number;
  /** Requests refused because the device was locked out. */
  lockedRefusals: number;
  /** TCP connections accepted (HTTP and TLS). */
  connections: number;
  /** The most management connections (HTTP and TLS, on the LAN and through its CIRA tunnel together) open at once, probes included. */
  peakOpenConnections: number;
  /** Presence pings answered. */
  rmcpPings: number;
  /** RequestPowerStateChange calls accepted. */
  powerChanges: number;
}

export interface Enumeration {
  items: SimInstance[];
  offset: number;
  createdAt: number;
}

export interface DeviceState {
  readonly config: DeviceConfig;
  hostname: string;
  domain: string;
  powerState: number;
  misbehaviour: Misbehaviour;
  certificate: CertificateName;
  readonly eventRecords: string[];
  readonly digest: SimDigest;
  /** Redirection: features, consent, boot setting, open sessions, the KVM screen's keys. */
  readonly redirection: RedirectionState;
  readonly enumerations: Map<string, Enumeration>;
  counters: Omit<DeviceCounters, 'authFailures' | 'lockedRefusals' | 'peakOpenConnections'>;
  /** TCP connections open now, and the most ever open at once. */
  open: { now: number; peak: number };
  messageSeq: number;
}

export function createDeviceState(config: DeviceConfig, seed: string | number): DeviceState {
  return {
    config,
    hostname: config.hostname,
    domain: config.domain,
    powerState: config.powerState,
    misbehaviour: 'none',
    certificate: 'a',
    eventRecords: eventLogRecords(`${seed}/${config.index}`, config.eventLogRecords),
    digest: new SimDigest({
      username: config.username,
      password: config.password,
      realm: config.realm,
      lockoutThreshold: config.lockoutThreshold,
      lockoutMs: config.lockoutMs,
      nonceTtlMs: config.nonceTtlMs,
    }),
    redirection: new RedirectionState(config.provisioningMode, `${seed}/${config.index}`, config.redirectionTimeouts),
    enumerations: new Map(),
    counters: { requests: 0, authAttempts: 0, unauthorized: 0, connections: 0, rmcpPings: 0, powerChanges: 0 },
    open: { now: 0, peak: 0 },
    messageSeq: 0x100,
  };
}

/** The next `MessageID` of a response, in AMT's format. */
export function nextMessageId(state: DeviceState): string {
  state.messageSeq++;
  return `uuid:00000000-8086-8086-8086-${state.messageSeq.toString(16).toUpperCase().padStart(12, '0')}`;
}

export function snapshotCounters(state: DeviceState): DeviceCounters {
  return { ...state.counters, authFailures: state.digest.failures, lockedRefusals: state.digest.lockedRefusals, peakOpenConnections: state.open.peak };
}
