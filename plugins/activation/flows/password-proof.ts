/**
 * An agent asking for a change to an activated device proves it is that device's by the AMT password
 * it was given (rpc-go sends it): the one this gateway stored when it activated the device, or a
 * one-time code an operator issued for the device (store/action-codes.ts). Only then is the agent a
 * proven way to the device, and the stored password goes along it.
 *
 * rpc-go sends no credential of its own, so each proof goes through the kernel's attempt throttle
 * (`ctx.auth.attemptThrottle`), counted as a failure from its start until it proves right: per device
 * and source address, per device from every address, and per address over every device. Past those
 * bounds the agent is refused for a while without a comparison, as AMT locks out guessers itself.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AlongCredential } from 'amt-gateway/devices';
import type { ActivationConfig } from '../config.js';
import { ActivationErrors } from '../errors.js';
import type { FlowContext, FlowParts } from './flow-parts.js';

/** The proof throttle of the plugin's bounds: refusals only, no growing delays (an agent's action has its own time bound). */
export function proofThrottleOptions(config: Pick<ActivationConfig, 'proofMaxFailures' | 'proofDeviceMaxFailures' | 'proofAddressMaxFailures' | 'proofWindowSeconds'>) {
  return {
    freeFailures: config.proofMaxFailures,
    maxFailures: config.proofMaxFailures,
    nameMaxFailures: config.proofDeviceMaxFailures,
    addressMaxFailures: config.proofAddressMaxFailures,
    windowSeconds: config.proofWindowSeconds,
    delayStepMs: 0,
    // One agent per device at a time anyway (the session directory); an address runs a few machines' agents behind NAT.
    maxConcurrentPerName: 1,
    maxConcurrentPerAddress: 16,
  };
}

export type ProofParts = Pick<FlowParts, 'vault' | 'codes' | 'proofs'>;

/**
 * The device's stored credential, once `given` matches it (compared in constant time inside the
 * vault: the stored password never leaves it), as the flow signs in with it: the password it was
 * given is that one. With a one-time code the code is no password: the gate signs in with the
 * stored one, named by id.
 * @throws 409 `GW_ERR_ACTIVATION_NO_PASSWORD` when this gateway holds none, 429 `GW_ERR_ACTIVATION_PROOF_LIMIT` past the failure bounds (nothing compared), 403 `GW_ERR_ACTIVATION_PASSWORD` when it differs
 */
export async function provenCredential(parts: ProofParts, ctx: Pick<FlowContext, 'agent' | 'signal'>, given: string | null): Promise<AlongCredential> {
  const { uuid, session } = ctx.agent;
  const bound = parts.vault.boundTo(uuid);
  if (!bound) throw ActivationErrors.noStoredPassword(uuid);
  const attempt = parts.proofs.begin(session.remoteAddress, uuid);
  if ('retryAfterSeconds' in attempt) throw ActivationErrors.proofLimit(uuid, attempt.retryAfterSeconds);
  try {
    if (attempt.delayMs > 0) await sleep(attempt.delayMs, undefined, { signal: ctx.signal });
    if (given !== null && (await parts.vault.passwordMatches(bound.id, given))) {
      attempt.succeeded();
      return { id: bound.id, username: bound.username, password: given };
    }
    if (given !== null && (await parts.codes.consume(uuid, given))) {
      attempt.succeeded();
      return { stored: bound.id };
    }
    throw ActivationErrors.passwordMismatch(uuid);
  } finally {
    attempt.end();
  }
}
