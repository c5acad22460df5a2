/**
 * What a revoked sign-in ends at once (the kernel's `AccessRevoked`): the tickets and sessions of
 * the token signed out, every ticket and session of a user whose password changed, and the sessions
 * of a user who was deleted or no longer holds `remote:connect` (its unused tickets are refused with
 * 403 when used, as the user is checked then).
 */
import type { AccessRevokedEvent, PluginAuth } from '../../core/plugin-api.js';
import type { SessionRegistry } from './sessions.js';
import type { TicketStore } from './tickets.js';
import { PERMISSION } from './permission.js';

export interface RevocationDeps {
  auth: Pick<PluginAuth, 'userById'>;
  tickets: TicketStore;
  registry: SessionRegistry;
}

export function createRevocation({ auth, tickets, registry }: RevocationDeps) {
  /** Ends everything of a user that no longer exists or holds the permission. */
  const checkUser = async (userId: string): Promise<void> => {
    const user = await auth.userById(userId);
    if (user?.permissions.includes(PERMISSION)) return;
    for (const session of registry.forUser(userId)) session.end('forbidden');
  };
  return {
    revoked(event: AccessRevokedEvent): Promise<void> {
      if (event.reason === 'signed-out' || event.reason === 'password-changed') {
        const revokedToken = (tokenId: string) => event.reason === 'password-changed' || event.tokenIds.includes(tokenId);
        tickets.drop(event.userId, (ticket) => revokedToken(ticket.tokenId));
        for (const session of registry.forUser(event.userId)) if (revokedToken(session.tokenId)) session.end('revoked');
      }
      return checkUser(event.userId);
    },
    /** Checks every open session's user (the periodic backstop). */
    async checkAll(): Promise<void> {
      for (const userId of new Set(registry.list().map((s) => s.userId))) await checkUser(userId);
    },
  };
}
