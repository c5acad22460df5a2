/**
 * Operators' approvals for activating a device whose UUID is already a managed device (it replaces
 * that device's record, password and CIRA account). An activation that needs one waits for it (its
 * record says `waiting`); an approval given is kept for `validSeconds` and used once.
 */
import type { KeyValueStore } from '../../../core/plugin-api.js';
import { ActivationErrors } from '../errors.js';
import type { ActivationApproval } from '../schemas.js';

interface Grant {
  uuid: string;
  deviceId: string;
  approvedBy: string;
  approvedAt: string;
  expiresAt: string;
}

interface Waiting {
  deviceId: string;
  recordId: string;
  remoteAddress: string;
  requestedAt: string;
  resolve(approved: boolean): void;
}

export interface Approvals {
  /** Pending requests and the approvals given that are still valid. */
  list(): ActivationApproval[];
  /**
   * Whether the activation may go on: at once with a valid approval (used up), else after one comes
   * within `waitMs` (false when none does, or the action is abandoned).
   */
  await(uuid: string, request: Omit<Waiting, 'resolve'>, waitMs: number, signal: AbortSignal): Promise<boolean>;
  /** An operator approves; the activation waiting for it goes on. @throws 404 when no activation of this UUID waits and `deviceId` is not given */
  approve(uuid: string, by: string, deviceId?: string): Promise<ActivationApproval>;
}

export async function openApprovals(store: KeyValueStore, validSeconds: number): Promise<Approvals> {
  const grants = new Map<string, Grant>();
  for await (const page of store.pages<Grant>()) for (const [, grant] of page) grants.set(grant.uuid, grant);
  const waiting = new Map<string, Waiting>();
  const valid = (uuid: string) => {
    const grant = grants.get(uuid);
    return grant && Date.parse(grant.expiresAt) > Date.now() ? grant : undefined;
  };
  const consume = async (uuid: string) => {
    grants.delete(uuid);
    await store.del(uuid);
  };
  const view = (uuid: string): ActivationApproval => {
    const pending = waiting.get(uuid);
    const grant = valid(uuid);
    return {
      uuid,
      deviceId: pending?.deviceId ?? grant?.deviceId ?? '',
      recordId: pending?.recordId ?? null,
      remoteAddress: pending?.remoteAddress ?? null,
      requestedAt: pending?.requestedAt ?? null,
      approvedBy: grant?.approvedBy ?? null,
      approvedAt: grant?.approvedAt ?? null,
      expiresAt: grant?.expiresAt ?? null,
    };
  };
  return {
    list: () => [...new Set([...waiting.keys(), ...[...grants.keys()].filter((u) => valid(u))])].sort().map(view),
    async await(uuid, request, waitMs, signal) {
      if (valid(uuid)) {
        await consume(uuid);
        return true;
      }
      if (waitMs <= 0 || waiting.has(uuid)) return false;
      const approved = await new Promise<boolean>((resolve) => {
        const done = (value: boolean) => {
          clearTimeout(timer);
          signal.removeEventListener('abort', abort);
          if (waiting.get(uuid)?.resolve === done) waiting.delete(uuid);
          resolve(value);
        };
        const abort = () => done(false);
        const timer = setTimeout(() => done(false), waitMs);
        signal.addEventListener('abort', abort, { once: true });
        waiting.set(uuid, { ...request, resolve: done });
      });
      if (approved) await consume(uuid);
      return approved;
    },
    async approve(uuid, by, deviceId) {
      const pending = waiting.get(uuid);
      const device = pending?.deviceId ?? deviceId;
      if (!device) throw ActivationErrors.noPendingApproval(uuid);
      const now = Date.now();
      const grant: Grant = { uuid, deviceId: device, approvedBy: by, approvedAt: new Date(now).toISOString(), expiresAt: new Date(now + validSeconds * 1000).toISOString() };
      await store.put(uuid, grant);
      grants.set(uuid, grant);
      const result = view(uuid);
      pending?.resolve(true);
      return result;
    },
  };
}
