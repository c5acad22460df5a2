/**
 * A ticket belongs to the user who asked for it, by its immutable id: another user who later holds
 * the same name (the first deleted, a new one created) cannot use it, whether or not a revocation
 * event was seen. The session service runs with stand-ins for the device parts: the test is about
 * who the ticket admits, which no device takes part in.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthenticatedUser, PluginAuth } from '../../../core/plugin-api.js';
import { createEventBus } from '../../../core/events/event-bus.js';
import { createLogger } from '../../../core/log/logger.js';
import { REDIRECTION_CONFIG_SCHEMA, type RedirectionConfig } from '../../../plugins/redirection/config.js';
import { createSessionService, type SessionServiceDeps } from '../../../plugins/redirection/session-service.js';
import { Value } from '@sinclair/typebox/value';

const first: AuthenticatedUser = { id: 'id-of-the-first', username: 'reused', permissions: ['remote:connect'] };
const second: AuthenticatedUser = { id: 'id-of-the-second', username: 'reused', permissions: ['remote:connect'] };

test('a ticket issued to a user is refused once that user is gone, even when a new user holds its name', async () => {
  const reachedDevice: string[] = [];
  let current: AuthenticatedUser = first;
  const auth = {
    // Only the new user exists now: by name it would pass, by id it does not.
    currentUser: async (name: string) => (name === current.username ? current : null),
    userById: async (id: string) => (id === current.id ? current : null),
  } as unknown as PluginAuth;
  const logger = createLogger({ level: 'silent' });
  const deps = {
    devices: { require: (id: string) => ({ id, ipAddress: '127.0.0.1' }) },
    reads: { read: async () => ({ features: { kvm: true, sol: true, ider: false }, userConsent: 'none', optInState: 'not-started', canModifyOptInPolicy: true }) },
    sessionAccess: {
      run: async () => {
        reachedDevice.push('opened');
        throw Object.assign(new Error('stand-in device'), { code: 'GW_ERR_DEVICE_UNREACHABLE' });
      },
    },
    auth,
    logger,
    config: Value.Default(REDIRECTION_CONFIG_SCHEMA, {}) as RedirectionConfig,
    events: createEventBus(logger),
    audit: undefined,
  } as unknown as SessionServiceDeps;
  const sessions = createSessionService(deps);
  try {
    const ticket = await sessions.create(first, 'token-of-the-first', 'device-1', 'sol');
    current = second;
    const ticketText = new URL(ticket.url, 'http://x').searchParams.get('ticket')!;
    await assert.rejects(
      sessions.connect(ticketText, '127.0.0.1', () => Promise.reject(new Error('no viewer'))),
      (err: { status?: number; code?: string }) => err.status === 403 && err.code === 'GW_ERR_FORBIDDEN',
    );
    assert.deepEqual(reachedDevice, [], 'nothing reached the device');
  } finally {
    sessions.stop();
  }
});
