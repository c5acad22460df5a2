/** What the action flows work with: the plugin's stores, the device link, and the services of the plugins around. */
import type { AttemptThrottle } from '../../../core/plugin-api.js';
import type { CredentialVault, DevicePresence, DeviceRegistry } from 'amt-gateway/devices';
import type { CiraService } from 'amt-gateway/cira';
import type { ActivationConfig } from '../config.js';
import type { DeviceLink } from '../device/gate-calls.js';
import type { DomainStore } from '../domains/domain-store.js';
import type { ConnectedAgent } from '../session/session-directory.js';
import type { ActionCodes } from '../store/action-codes.js';
import type { Approvals } from '../store/approvals.js';
import type { ProfileStore } from '../store/profile-store.js';
import type { ActionTracker } from './action-tracker.js';

export interface FlowParts {
  profiles: ProfileStore;
  domains: DomainStore;
  approvals: Approvals;
  /** One-time codes operators type instead of a device's password. */
  codes: ActionCodes;
  /** Failed password proofs of agents, counted per device and address (flows/password-proof.ts). */
  proofs: AttemptThrottle;
  link: DeviceLink;
  devices: DeviceRegistry;
  presence: DevicePresence;
  vault: CredentialVault;
  /** Absent when the cira plugin is not enabled. */
  cira: CiraService | undefined;
  config: ActivationConfig;
}

/** One action's own: the agent it came through, its tracker, and the signal that ends it (timeout, agent gone, shutdown). */
export interface FlowContext {
  agent: ConnectedAgent;
  tracker: ActionTracker;
  signal: AbortSignal;
}

/** RPS's `success` message body, which rpc-go prints (the flat fields, and the per-component results of rpc-go 2.5x). */
export interface StatusMessage {
  Status: string;
  Network?: string;
  CIRAConnection?: string;
  TLSConfiguration?: string;
  Components?: Record<string, { Result: 'Success' | 'Failure' | 'NotApplicable'; Mode?: string; Details?: string }>;
}
