/** Records what the kernel does (sign-ins, users): it publishes them awaited, so each record is written before the answer. */
import type { EventBus } from '../../core/plugin-api.js';
import type { AuditTrail } from './api.js';

export function recordKernelEvents(events: EventBus, trail: AuditTrail): Array<() => void> {
  return [
    events.subscribe('SignInAttempted', (e) =>
      trail.record({
        by: { user: e.user, address: e.address },
        action: 'auth.sign-in',
        target: e.user,
        outcome: e.outcome === 'success' ? 'success' : 'failure',
        detail: { door: e.door, ...(e.outcome === 'refused' ? { refused: 'too many failed sign-ins' } : {}) },
      }),
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
