import type { SoapCaller } from './client-auth.js';
import { DeliveryRefused, type DeliveryPolicy } from './delivery-policy.js';
import type { EnumerationStore } from './enumeration-store.js';
import { SoapFault } from './errors.js';
import type { MachinePresence } from './presence-adapter.js';
import type { OperationName, SoapRequest } from './soap-request.js';
import { normalizeDelivery, type SubscriptionStore } from './subscription-store.js';

/** The content of a response element, as strong-soap serializes it against the WSDL. */
export type OperationResult = Record<string, unknown>;

/** One handler per operation, for the caller the request was authenticated as. */
export type Operations = {
  [K in OperationName]: (request: Extract<SoapRequest, { operation: K }>, caller: SoapCaller) => Promise<OperationResult>;
};

export interface OperationDeps {
  presence: MachinePresence;
  enumerations: EnumerationStore;
  subscriptions: SubscriptionStore;
  /** Where notifications may go: a Delivery it refuses is not subscribed. */
  deliveryPolicy: DeliveryPolicy;
  defaultPageSize: number;
  maxPageSize: number;
}

/** Operations whose response has an empty SOAP body (specification, part 2). */
export const EMPTY_RESPONSE_OPERATIONS: ReadonlySet<OperationName> = new Set(['Release', 'Unsubscribe']);

/** A fault unless notifications may reach the host and port of `delivery` (normalized) now. */
async function admitDelivery(policy: DeliveryPolicy, delivery: string): Promise<void> {
  try {
    await policy.addresses(new URL(delivery).hostname, portOf(delivery));
  } catch (err) {
    if (err instanceof DeliveryRefused) throw new SoapFault('GW_ERR_SOAP_DELIVERY_NOT_ALLOWED', `Delivery ${err.message}`);
    throw err;
  }
}

/** The port a delivery URI connects to. */
export function portOf(uri: string): number {
  const url = new URL(uri);
  return url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
}

/** The six operations of MPSInterfaceService. */
export function createOperations(deps: OperationDeps): Operations {
  const { presence, enumerations, subscriptions } = deps;
  return {
    async IsMachineConnected(request) {
      return { IsConnected: presence.isConnected(request.systemName) };
    },
    async EnumerateConnectedMachines(_request, caller) {
      const { id, expiresAt } = enumerations.open(caller.key, presence.connectedNames());
      return { Expires: expiresAt.toISOString(), EnumerationContext: id };
    },
    async Pull(request, caller) {
      const max = Math.min(request.maxElements ?? deps.defaultPageSize, deps.maxPageSize);
      const page = enumerations.pull(caller.key, request.context, max);
      return { Items: page.items.map((SystemName) => ({ SystemName })), ...(page.endOfSequence ? { EndOfSequence: '' } : {}) };
    },
    async Release(request, caller) {
      enumerations.release(caller.key, request.context);
      return {};
    },
    async SubscribeForNotifications(request, caller) {
      await admitDelivery(deps.deliveryPolicy, normalizeDelivery(request.delivery));
      const subscription = await subscriptions.subscribe(caller.key, request.delivery);
      return { Expires: subscription.expiresAt };
    },
    async Unsubscribe(request, caller) {
      await subscriptions.unsubscribe(caller.manageAll ? null : caller.key, request.delivery);
      return {};
    },
  };
}
