/**
 * What a simulated device's redirection side holds: which features are on, the consent (opt-in)
 * policy and state with its code, the one-time boot setting and what the last reset booted into, the
 * sessions open now, and the keys typed into its KVM screen.
 */
import { SeededBytes } from '../device-identity.js';
import { SolHost } from './sol-host.js';
import { SimIderState } from './ider/sim-ider-state.js';

export type RedirectionMode = 'sol' | 'kvm' | 'ider';
/** What the device booted into at its last reset (`hdd` when nothing was asked). */
export type BootTarget = 'bios' | 'pxe' | 'hdd' | 'ider-cd' | 'ider-floppy';

/** `OptInRequired` values: none, KVM only, everything. */
export const OPT_IN = { none: 0, kvm: 1, all: 0xffffffff } as const;
/** `OptInState`: 0 not started, 1 requested, 2 displayed, 3 received, 4 in session. */
export type OptInState = 0 | 1 | 2 | 3 | 4;

export interface RedirectionTimeouts {
  /** A KVM session without keyboard or mouse input is closed after this (AMT: about 3 minutes). */
  kvmIdleMs: number;
  /** A SOL session that sends nothing (not even a heartbeat) is closed after this. */
  solIdleMs: number;
  /** A started consent that gets no code is cancelled after this. */
  consentTimeoutMs: number;
}

export interface RedirectionCounters {
  /** StartRedirectionSession messages received. */
  starts: number;
  /** Starts refused as busy (a session of that mode was open). */
  busy: number;
  /** Redirection sign-ins accepted / refused (the refusals also count in the Digest failures). */
  signIns: number;
  signInFailures: number;
  /** Sessions that ended because the client went idle. */
  idleCloses: number;
  /** SendOptInCode calls, right or wrong. */
  codeAttempts: number;
}

export class RedirectionState {
  /** `AMT_RedirectionService.ListenerEnabled`: off closes the redirection ports to new sessions. */
  listener = true;
  sol = true;
  ider = true;
  kvm = true;
  optInRequired: number;
  optInState: OptInState = 0;
  /** The 6-digit code the device shows on its screen while consent is displayed (tests read it here). */
  consentCode: string | null = null;
  /** Whether `optInRequired` can be changed (not on a device in client control mode). */
  optInPolicyFixed: boolean;
  /** `useIder` / `iderDevice` (0 floppy, 1 CD): AMT_BootSettingData's UseIDER and IDERBootDevice. */
  readonly boot = { biosSetup: false, pxe: false, useIder: false, iderDevice: 0, armed: false };
  /** The IDE-R host: the open session's drives, how the host reads them, what its boots found. */
  readonly iderHost = new SimIderState();
  lastBoot: BootTarget = 'hdd';
  /** Resets the device carried out (each consumes the armed boot setting). */
  resets = 0;
  readonly open = new Set<RedirectionMode>();
  /** Keys pressed on the KVM screen, in order (what was typed into the simulated screen). */
  readonly typed: number[] = [];
  /** The host's serial port as SOL sessions see it (its lines, and a test control for a chattering device). */
  readonly solHost = new SolHost();
  readonly counters: RedirectionCounters = { starts: 0, busy: 0, signIns: 0, signInFailures: 0, idleCloses: 0, codeAttempts: 0 };
  #consentTimer: NodeJS.Timeout | undefined;
  #codes: SeededBytes;
  #screenListeners = new Set<() => void>();

  constructor(
    provisioningMode: number,
    seed: string,
    readonly timeouts: RedirectionTimeouts,
  ) {
    // Client control mode (4): consent for everything, and the policy cannot change.
    this.optInPolicyFixed = provisioningMode === 4;
    this.optInRequired = this.optInPolicyFixed ? OPT_IN.all : OPT_IN.none;
    this.#codes = new SeededBytes(`${seed}/consent`);
  }

  /** Puts the device in client control mode: consent for everything, a policy that cannot change (a test control). */
  setClientControlMode(): void {
    this.optInPolicyFixed = true;
    this.optInRequired = OPT_IN.all;
  }

  /** Whether `mode` needs consent that has not been given now. */
  needsConsent(mode: RedirectionMode): boolean {
    if (this.optInState === 3 || this.optInState === 4) return false;
    if (this.optInRequired === OPT_IN.all) return true;
    return this.optInRequired === OPT_IN.kvm && mode === 'kvm';
  }

  enabled(mode: RedirectionMode): boolean {
    return this.listener && this[mode];
  }

  /** `StartOptIn`: shows a fresh 6-digit code (leading zeros count) on the screen. */
  startConsent(): void {
    this.consentCode = String(this.#codes.int(1_000_000)).padStart(6, '0');
    this.optInState = 2;
    clearTimeout(this.#consentTimer);
    this.#consentTimer = setTimeout(() => this.cancelConsent(), this.timeouts.consentTimeoutMs).unref();
    this.screenChanged();
  }

  /** `SendOptInCode`: true when the code is the one shown. A wrong code leaves the state as it is. */
  sendCode(code: string): boolean {
    this.counters.codeAttempts++;
    if (this.optInState !== 2 || code !== this.consentCode) return false;
    this.optInState = 3;
    this.consentCode = null;
    this.screenChanged();
    return true;
  }

  cancelConsent(): void {
    clearTimeout(this.#consentTimer);
    this.optInState = 0;
    this.consentCode = null;
    this.screenChanged();
  }

  sessionStarted(mode: RedirectionMode): void {
    this.open.add(mode);
    if (this.optInState === 3) {
      clearTimeout(this.#consentTimer);
      this.optInState = 4;
    }
  }

  sessionEnded(mode: RedirectionMode): void {
    this.open.delete(mode);
    if (this.open.size === 0 && this.optInState === 4) this.optInState = 0;
  }

  /** A reset or power-on: the armed one-time boot setting decides what it boots into, and is used up. */
  reset(): void {
    this.resets++;
    this.solHost.reset();
    const ider = this.boot.iderDevice === 1 ? 'ider-cd' : 'ider-floppy';
    this.lastBoot = this.boot.armed ? (this.boot.biosSetup ? 'bios' : this.boot.useIder ? ider : this.boot.pxe ? 'pxe' : 'hdd') : 'hdd';
    Object.assign(this.boot, { biosSetup: false, pxe: false, useIder: false, iderDevice: 0, armed: false });
    if (this.lastBoot === 'ider-cd' || this.lastBoot === 'ider-floppy') void this.iderHost.boot(this.lastBoot === 'ider-cd' ? 'cd' : 'floppy');
    this.screenChanged();
  }

  keyPressed(keysym: number): void {
    this.typed.push(keysym);
    if (this.typed.length > 4096) this.typed.splice(0, this.typed.length - 4096);
    this.screenChanged();
  }

  /** Calls `listener` whenever the screen's content changes; returns the unsubscribe. */
  onScreenChange(listener: () => void): () => void {
    this.#screenListeners.add(listener);
    return () => this.#screenListeners.delete(listener);
  }

  screenChanged(): void {
    for (const listener of this.#screenListeners) listener();
  }

  stop(): void {
    clearTimeout(this.#consentTimer);
  }
}
