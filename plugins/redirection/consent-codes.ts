/**
 * Consent codes under a bound of the gateway's own (firmware may or may not limit wrong codes): the
 * kernel's attempt throttle, keyed by device and user, each attempt counted as wrong from its start
 * until the device accepts it, so parallel guesses gain nothing. An attempt the device never
 * answered is not counted either way. In a cluster one instance counts a device's codes: its owner
 * (`routeCodesToOwner`), so guesses spread over the instances get no more.
 */
import type { AuthenticatedUser, PluginAuth, PluginCluster } from '../../core/plugin-api.js';
import type { Device, DeviceRegistry } from 'amt-gateway/devices';
import type { RedirectionConfig } from './config.js';
import type { OptInStateName, RedirectionReads } from './device-state.js';
import { RedirectionErrors } from './errors.js';

export function createConsentCodes(reads: Pick<RedirectionReads, 'sendCode'>, bounds: RedirectionConfig['consent'], auth: Pick<PluginAuth, 'attemptThrottle'>) {
  const throttle = auth.attemptThrottle({
    freeFailures: bounds.maxWrongCodes,
    maxFailures: bounds.maxWrongCodes,
    addressMaxFailures: bounds.maxWrongCodesPerDevice,
    windowSeconds: bounds.windowSeconds,
    delayStepMs: 0,
    // One code of a user to a device at a time; the device answers one operation at a time anyway.
    maxConcurrentPerName: 1,
    maxConcurrentPerAddress: 4,
  });
  return {
    /** Sends a code for `user`; 429 `GW_ERR_CONSENT_CODE_LIMIT` past the bounds, 422 for a wrong code. */
    async send(device: Readonly<Device>, user: AuthenticatedUser, code: string): Promise<OptInStateName> {
      const attempt = throttle.begin(device.id, user.id);
      if ('retryAfterSeconds' in attempt) throw RedirectionErrors.codeLimit(device, attempt.retryAfterSeconds);
      try {
        const state = await reads.sendCode(device, code);
        attempt.succeeded();
        return state;
      } catch (err) {
        if ((err as { code?: string }).code !== 'GW_ERR_CONSENT_CODE_WRONG') attempt.unchecked();
        throw err;
      } finally {
        attempt.end();
      }
    },
  };
}

/**
 * In a cluster, a LAN device's consent codes are sent by the device's owner instance, so that one
 * throttle counts them (a CIRA device's go to its tunnel's instance: the cira plugin routes them).
 */
export function routeCodesToOwner(cluster: PluginCluster, devices: Pick<DeviceRegistry, 'get'>, prefix: string): void {
  cluster.routeRequests((req) => {
    const deviceId = (req.params as Record<string, string | undefined>)['deviceId'];
    if (req.method !== 'POST' || !deviceId || !req.path.startsWith(`${prefix}/`) || !req.path.endsWith('/consent/code')) return null;
    return devices.get(deviceId)?.connections?.includes('cira') ? null : cluster.ownerOf(deviceId);
  });
}
