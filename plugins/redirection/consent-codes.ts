/**
 * Consent codes under a bound of the gateway's own (firmware may or may not limit wrong codes): the
 * kernel's attempt throttle, keyed by device and user, each attempt counted as wrong from its start
 * until the device accepts it, so parallel guesses gain nothing. An attempt the device never
 * answered is not counted either way.
 */
import type { AuthenticatedUser } from '../../core/plugin-api.js';
import type { Device } from 'amt-gateway/devices';
import { createLoginThrottle } from '../../core/auth/login-throttle.js';
import type { RedirectionConfig } from './config.js';
import type { OptInStateName, RedirectionReads } from './device-state.js';
import { RedirectionErrors } from './errors.js';

export function createConsentCodes(reads: Pick<RedirectionReads, 'sendCode'>, bounds: RedirectionConfig['consent']) {
  const throttle = createLoginThrottle({
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
