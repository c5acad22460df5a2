/**
 * An agent asking for a change to an activated device proves it is that device's by the AMT password
 * it was given (rpc-go sends it): the one this gateway stored when it activated the device, or a
 * one-time code an operator issued for the device (store/action-codes.ts). Only then is the agent a
 * proven way to the device, and the stored password goes along it.
 */
import type { AlongCredential } from 'amt-gateway/devices';
import { ActivationErrors } from '../errors.js';
import type { FlowParts } from './flow-parts.js';

/**
 * The device's stored credential, once `given` matches it (compared in constant time inside the
 * vault: the stored password never leaves it), as the flow signs in with it: the password it was
 * given is that one. With a one-time code the code is no password: the gate signs in with the
 * stored one, named by id.
 * @throws 409 `GW_ERR_ACTIVATION_NO_PASSWORD` when this gateway holds none, 403 `GW_ERR_ACTIVATION_PASSWORD` when it differs
 */
export async function provenCredential(parts: Pick<FlowParts, 'vault' | 'codes'>, uuid: string, given: string | null): Promise<AlongCredential> {
  const bound = parts.vault.boundTo(uuid);
  if (!bound) throw ActivationErrors.noStoredPassword(uuid);
  if (given !== null && (await parts.vault.passwordMatches(bound.id, given))) return { id: bound.id, username: bound.username, password: given };
  if (given !== null && parts.codes.consume(uuid, given)) return { stored: bound.id };
  throw ActivationErrors.passwordMismatch(uuid);
}
