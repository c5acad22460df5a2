/**
 * The kernel's one sign-in: every way a user signs in with a password (`POST /api/auth/login`, SOAP
 * HTTP Basic, whatever a plugin adds through `ctx.auth.signIn`) passes the same throttle, counted
 * from the attempt's start, and leaves the same traces: a `SignInAttempted` event (the audit trail
 * records it) and, for failures and refusals, a warning aggregated per address and door.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../log/logger.js';
import { createLogDigest, loggableName, type LogDigest } from '../log/log-digest.js';
import type { SignInRequest, SignInResult } from '../plugin-api.js';
import type { AuthService } from './auth-service.js';
import type { LoginThrottle } from './login-throttle.js';

export const DOOR_PATTERN = /^[a-z0-9-]{1,32}$/;
const LOG_INTERVAL_MS = 60_000;

export interface SignInService {
  signIn(request: SignInRequest): Promise<SignInResult>;
  /** Writes the log summaries due (at shutdown). */
  close(): void;
}

export function createSignInService(auth: AuthService, throttle: LoginThrottle, events: EventBus, logger: Logger): SignInService {
  const digests: Record<'failure' | 'refused', LogDigest> = {
    failure: createLogDigest({ logger, message: 'sign-in failed: unknown user or wrong password', summary: 'sign-ins failed (summary)', intervalMs: LOG_INTERVAL_MS, overflowFields: { remoteAddress: 'other addresses', user: 'other names' } }),
    refused: createLogDigest({ logger, message: 'sign-in refused: too many failed attempts', summary: 'sign-ins refused (summary)', intervalMs: LOG_INTERVAL_MS, overflowFields: { remoteAddress: 'other addresses', user: 'other names' } }),
  };
  return {
    async signIn({ username, password, address, door }) {
      if (!DOOR_PATTERN.test(door)) throw new Error(`sign-in door '${door.slice(0, 40)}' must be 1 to 32 of a-z, 0-9 and -`);
      const attempted = async (outcome: 'success' | 'failure' | 'refused') => {
        if (outcome !== 'success') digests[outcome].note(`${address}\u0000${door}`, { remoteAddress: address, door, user: loggableName(username) });
        await events.publishAwaited('SignInAttempted', { user: username, address, outcome, door });
      };
      const attempt = throttle.begin(address, username);
      if ('retryAfterSeconds' in attempt) {
        await attempted('refused');
        return { outcome: 'refused', retryAfterSeconds: attempt.retryAfterSeconds };
      }
      try {
        if (attempt.delayMs > 0) await sleep(attempt.delayMs);
        const user = await auth.checkPassword(username, password);
        if (!user) {
          await attempted('failure');
          return { outcome: 'failure' };
        }
        attempt.succeeded();
        await attempted('success');
        return { outcome: 'success', user };
      } finally {
        attempt.end();
      }
    },
    close() {
      for (const digest of Object.values(digests)) digest.close();
    },
  };
}
