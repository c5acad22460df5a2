/**
 * An agent asking for a change to an activated device proves it is that device's by the AMT password
 * it was given (rpc-go sends it): the one this gateway stored when it activated the device, or a
 * one-time code an operator issued for the device (store/action-codes.ts). Only then is the agent a
 * proven way to the device, and the stored password goes along it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { TaskCredential } from '../../../workers/tasks/task-types.js';
import { ActivationErrors } from '../errors.js';
import type { FlowParts } from './flow-parts.js';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * The device's stored credential, once `given` matches it (compared in constant time).
 * @throws 409 `GW_ERR_ACTIVATION_NO_PASSWORD` when this gateway holds none, 403 `GW_ERR_ACTIVATION_PASSWORD` when it differs
 */
export async function provenCredential(parts: Pick<FlowParts, 'vault' | 'codes'>, uuid: string, given: string | null): Promise<TaskCredential> {
  const bound = parts.vault.boundTo(uuid);
  if (!bound) throw ActivationErrors.noStoredPassword(uuid);
  const stored = await parts.vault.unseal(bound.id);
  const matches = given !== null && (timingSafeEqual(digest(given), digest(stored.password)) || parts.codes.consume(uuid, given));
  if (!matches) throw ActivationErrors.passwordMismatch(uuid);
  return { id: stored.id, username: stored.username, password: stored.password };
}
