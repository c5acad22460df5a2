/**
 * Device sign-in: the throttle around the MPS account check, and the rate-limited warnings about
 * failures (one line per address at first, then one summary per interval; user names truncated).
 */
import type { Logger } from '../../../core/plugin-api.js';
import type { AccountStore } from '../accounts/account-store.js';
import { createAuthThrottle, type AuthThrottleOptions } from './auth-throttle.js';
import { createLogDigest, loggableName } from '../../../core/log/log-digest.js';

export interface SignInOptions {
  accounts: AccountStore;
  logger: Logger;
  throttle: AuthThrottleOptions;
  logIntervalMs: number;
  /** Counters of the server. */
  stats: { authFailures: number; throttledSignIns: number };
}

export interface SignIn {
  authenticate(username: string, password: string, remoteAddress: string): Promise<boolean>;
  close(): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createSignIn(options: SignInOptions): SignIn {
  const { accounts, stats } = options;
  const throttle = createAuthThrottle(options.throttle);
  const failures = createLogDigest({
    logger: options.logger,
    message: 'cira device sign-in refused',
    summary: 'cira device sign-ins refused (summary)',
    intervalMs: options.logIntervalMs,
  });
  return {
    async authenticate(username, password, remoteAddress) {
      const attempt = throttle.begin(remoteAddress, username);
      if (!attempt) {
        stats.throttledSignIns++;
        failures.note(remoteAddress, { username: loggableName(username), remoteAddress, reason: 'too many sign-ins of this address at once' });
        return false;
      }
      if (attempt.delayMs > 0) await sleep(attempt.delayMs);
      let ok = false;
      try {
        ok = accounts.verify(username, password);
      } finally {
        attempt.settle(ok);
      }
      if (!ok) {
        stats.authFailures++;
        failures.note(remoteAddress, { username: loggableName(username), remoteAddress, delayedMs: attempt.delayMs });
      }
      return ok;
    },
    close: () => failures.close(),
  };
}
