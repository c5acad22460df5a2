/**
 * Redirection features and user consent of a device: `AMT_RedirectionService` (SOL, IDER, the
 * listener), `CIM_KVMRedirectionSAP` (KVM) and `IPS_OptInService` (consent policy and state), read,
 * written, and the consent methods.
 */
import { AmtError } from '../errors.js';
import type { WsmanClient } from '../wsman-client.js';
import { booleanOf, flattenProperties, intOf, type WsmanItem } from '../wsman-parse.js';

export const REDIRECTION_SERVICE = 'AMT_RedirectionService';
export const KVM_SAP = 'CIM_KVMRedirectionSAP';
export const OPT_IN_SERVICE = 'IPS_OptInService';
/** `AMT_RedirectionService.EnabledState`: 32768 none, +1 IDER, +2 SOL. */
const REDIRECTION_BASE = 32768;
/** `SendOptInCode` answer for a wrong code. */
export const OPT_IN_WRONG_CODE = 2066;

export interface RedirectionFeatures {
  kvm: boolean;
  sol: boolean;
  ider: boolean;
  /** `ListenerEnabled`: off blocks KVM and SOL whatever their own state. */
  listener: boolean;
  /** A KVM session is open now (`EnabledState` 2). */
  kvmSessionOpen: boolean;
  /** `OptInRequired`: 0 none, 1 KVM, 0xFFFFFFFF all; null when the device has no opt-in service. */
  optInRequired: number | null;
  /** `OptInState` 0..4. */
  optInState: number | null;
  /** False on a device in client control mode: its consent policy is fixed. */
  canModifyOptInPolicy: boolean;
}

export interface FeatureChange {
  kvm?: boolean;
  sol?: boolean;
  ider?: boolean;
  optInRequired?: number;
}


/** The features and consent as the device reports them. */
export async function readRedirectionFeatures(client: WsmanClient): Promise<RedirectionFeatures> {
  return decodeRedirectionFeatures(await client.get(REDIRECTION_SERVICE), await client.get(KVM_SAP), await client.get(OPT_IN_SERVICE));
}

/**
 * Decodes the three instances, each property by its schema type: `ListenerEnabled` an xs:boolean,
 * `EnabledState`, `OptInRequired`, `OptInState` and `CanModifyOptInPolicy` integers (firmware sends
 * the last as `1`/`0`).
 */
export function decodeRedirectionFeatures(service: WsmanItem, kvm: WsmanItem, optIn: WsmanItem): RedirectionFeatures {
  const enabled = (intOf(service.properties['EnabledState']) ?? REDIRECTION_BASE) - REDIRECTION_BASE;
  const kvmState = intOf(kvm.properties['EnabledState']);
  // uint32 in the schema (1 / 0); a device that does not say is left to refuse the change itself.
  const canModify = intOf(optIn.properties['CanModifyOptInPolicy']);
  return {
    // 6: enabled, no session; 2: enabled, a session open. Both mean enabled.
    kvm: kvmState === 2 || kvmState === 6,
    sol: (enabled & 2) === 2,
    ider: (enabled & 1) === 1,
    listener: booleanOf(service.properties['ListenerEnabled']) === true,
    kvmSessionOpen: kvmState === 2,
    optInRequired: intOf(optIn.properties['OptInRequired']),
    optInState: intOf(optIn.properties['OptInState']),
    canModifyOptInPolicy: canModify !== 0,
  };
}

function checkReturn(what: string, returnValue: number | null): void {
  if (returnValue !== 0) throw new AmtError('AMT_ERR_BAD_RESPONSE', `${what} answered ReturnValue ${returnValue ?? 'none'}`);
}

/** A Put of an instance as read, with `changes` applied (AMT wants every property back). */
async function putChanged(client: WsmanClient, className: string, changes: Record<string, string>): Promise<void> {
  const current = flattenProperties((await client.get(className)).properties);
  const properties: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(current)) if (value !== '' || name in changes) properties[name] = value;
  await client.put(className, { ...properties, ...changes });
}

/**
 * Applies a change; turning KVM or SOL on turns the listener on too. Returns the state read back.
 * @param known the features as just read, when the caller has them (else they are read first)
 */
export async function writeRedirectionFeatures(client: WsmanClient, change: FeatureChange, known?: RedirectionFeatures): Promise<RedirectionFeatures> {
  const before = known ?? (await readRedirectionFeatures(client));
  const sol = change.sol ?? before.sol;
  const ider = change.ider ?? before.ider;
  if (sol !== before.sol || ider !== before.ider) {
    const out = await client.invoke(REDIRECTION_SERVICE, 'RequestStateChange', { RequestedState: REDIRECTION_BASE + (ider ? 1 : 0) + (sol ? 2 : 0) });
    checkReturn('AMT_RedirectionService.RequestStateChange', out.returnValue);
  }
  if (change.kvm !== undefined && change.kvm !== before.kvm) {
    const out = await client.invoke(KVM_SAP, 'RequestStateChange', { RequestedState: change.kvm ? 2 : 3 });
    checkReturn('CIM_KVMRedirectionSAP.RequestStateChange', out.returnValue);
  }
  if ((change.kvm === true || change.sol === true || change.ider === true) && !before.listener) {
    await putChanged(client, REDIRECTION_SERVICE, { ListenerEnabled: 'true' });
  }
  if (change.optInRequired !== undefined && change.optInRequired !== before.optInRequired) {
    await putChanged(client, OPT_IN_SERVICE, { OptInRequired: String(change.optInRequired) });
  }
  return readRedirectionFeatures(client);
}

export type OptInAction = { action: 'start' } | { action: 'code'; code: string } | { action: 'cancel' };

/** Starts, answers or cancels consent; returns the method's `ReturnValue` and the state after it. */
export async function optIn(client: WsmanClient, request: OptInAction): Promise<{ returnValue: number | null; optInState: number | null }> {
  const method = request.action === 'start' ? 'StartOptIn' : request.action === 'code' ? 'SendOptInCode' : 'CancelOptIn';
  const input: Record<string, string> = request.action === 'code' ? { OptInCode: request.code } : {};
  const out = await client.invoke(OPT_IN_SERVICE, method, input);
  const after = await client.get(OPT_IN_SERVICE);
  return { returnValue: out.returnValue, optInState: intOf(after.properties['OptInState']) };
}
