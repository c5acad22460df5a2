/**
 * Records what the kernel does (sign-ins, users): it publishes them awaited, so each record is
 * written before the answer. A successful sign-in is an operator record; failed and refused ones go
 * to their own class, aggregated (sign-in-failures.ts).
 */
import type { EventBus } from '../../core/plugin-api.js';
import type { AuditTrail } from './api.js';
import type { SignInFailures } from './sign-in-failures.js';

export function recordKernelEvents(events: EventBus, trail: AuditTrail, failures: SignInFailures): Array<() => void> {
  return [
    events.subscribe('SignInAttempted', (e) =>
      e.outcome === 'success' ? trail.record({ by: { user: e.user, address: e.address }, action: 'auth.sign-in', target: e.user, detail: { door: e.door } }) : failures.note(e),
    ),
    events.subscribe('UserChanged', (e) =>
      trail.record({
        by: { user: e.user, address: e.address },
        action: `user.${e.change === 'created' ? 'create' : e.change === 'updated' ? 'update' : 'delete'}`,
        target: e.username,
        detail: { ...(e.permissions ? { permissions: e.permissions } : {}), ...(e.passwordChanged ? { passwordChanged: true } : {}) },
      }),
    ),
  ];
}
