/**
 * Operators' approvals for activating a device whose UUID is already a managed device (it replaces
 * that device's record, password and CIRA account). An activation that needs one waits for it (its
 * record says `waiting`); an approval given is kept for `validSeconds` and used once. What waits is
 * written down too (`requests`), with the instance it waits on, so that every instance of a cluster
 * lists it; an approval given on another instance reaches the activation through the store.
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

/** An activation waiting, as the other instances of a cluster see it. */
interface Request {
  uuid: string;
  deviceId: string;
  recordId: string;
  remoteAddress: string;
  requestedAt: string;
  /** The instance the activation runs on. */
  instance: string;
}

/** Which instances run (a one-box site: itself alone, a new id at each start). */
export interface ApprovalInstances {
  self: string;
  isUp(id: string): boolean;
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

export async function openApprovals(store: KeyValueStore, requests: KeyValueStore, validSeconds: number, instances: ApprovalInstances): Promise<Approvals> {
  const grants = new Map<string, Grant>();
  for await (const page of store.pages<Grant>()) for (const [, grant] of page) grants.set(grant.uuid, grant);
  const waiting = new Map<string, Waiting>();
  /** What waits on the other instances (those up). */
  const elsewhere = new Map<string, Request>();
  const stale: string[] = [];
  for await (const page of requests.pages<Request>()) {
    for (const [uuid, request] of page) {
      if (request.instance !== instances.self && instances.isUp(request.instance)) elsewhere.set(uuid, request);
      else stale.push(uuid);
    }
  }
  // Requests of instances that stopped or died: their activations ended with them.
  if (stale.length > 0) await requests.batch(stale.map((key) => ({ type: 'del' as const, key })));
  requests.onRemoteChange<Request>((uuid, request) => (request && request.instance !== instances.self ? elsewhere.set(uuid, request) : elsewhere.delete(uuid)));
  const pendingElsewhere = (uuid: string) => {
    const request = elsewhere.get(uuid);
    return request && instances.isUp(request.instance) ? request : undefined;
  };
  // An approval given (or used) through another instance of a cluster; the activation waiting here for it goes on.
  store.onRemoteChange<Grant>((uuid, grant) => {
    if (!grant) return void grants.delete(uuid);
    grants.set(uuid, grant);
    waiting.get(uuid)?.resolve(true);
  });
  const valid = (uuid: string) => {
    const grant = grants.get(uuid);
    return grant && Date.parse(grant.expiresAt) > Date.now() ? grant : undefined;
  };
  const consume = async (uuid: string) => {
    grants.delete(uuid);
    await store.del(uuid);
  };
  const view = (uuid: string): ActivationApproval => {
    const pending = waiting.get(uuid) ?? pendingElsewhere(uuid);
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
    list: () => [...new Set([...waiting.keys(), ...[...elsewhere.keys()].filter((u) => pendingElsewhere(u)), ...[...grants.keys()].filter((u) => valid(u))])].sort().map(view),
    async await(uuid, request, waitMs, signal) {
      if (valid(uuid)) {
        await consume(uuid);
        return true;
      }
      if (waitMs <= 0 || waiting.has(uuid)) return false;
      await requests.put(uuid, { ...request, uuid, instance: instances.self } satisfies Request);
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
      await requests.del(uuid).catch(() => undefined);
      if (approved) await consume(uuid);
      return approved;
    },
    async approve(uuid, by, deviceId) {
      const pending = waiting.get(uuid) ?? pendingElsewhere(uuid);
      const device = pending?.deviceId ?? deviceId;
      if (!device) throw ActivationErrors.noPendingApproval(uuid);
      const now = Date.now();
      const grant: Grant = { uuid, deviceId: device, approvedBy: by, approvedAt: new Date(now).toISOString(), expiresAt: new Date(now + validSeconds * 1000).toISOString() };
      await store.put(uuid, grant);
      grants.set(uuid, grant);
      const result = view(uuid);
      waiting.get(uuid)?.resolve(true);
      return result;
    },
  };
}
