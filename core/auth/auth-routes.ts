import { setTimeout as sleep } from 'node:timers/promises';
import { Type } from '@sinclair/typebox';
import type { PluginContext } from '../plugin-api.js';
import { HttpError } from '../http/http-error.js';
import type { AuthService } from './auth-service.js';
import type { LoginThrottle } from './login-throttle.js';
import { AUTHENTICATED_USER_SCHEMA, LOGIN_RESPONSE_SCHEMA, type LoginResponse } from './user-schemas.js';
import { ComponentRef } from '../validation/schema-types.js';

export const LOGIN_REQUEST_SCHEMA = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64, pattern: '^[^\\u0000-\\u001f\\u007f]+$', 'x-pattern-message': 'must not contain control characters' }),
    password: Type.String({ minLength: 1, maxLength: 256 }),
  },
  { additionalProperties: false },
);


/** `POST /api/auth/login`, `GET /api/auth/me`, `POST /api/auth/logout`. */
export function registerAuthRoutes(ctx: PluginContext, auth: AuthService, throttle: LoginThrottle): void {
  ctx.http.route({
    method: 'post',
    path: '/auth/login',
    summary: 'Sign in and get a bearer token',
    description:
      'Repeated failures for one user name (matched case-insensitively) from one client address are slowed down, then refused with 429; many failures from one address (any names) refuse every login from it for a while. An attempt counts as a failure from the moment it starts until it succeeds, and only a few attempts per name and per address may run at once (429 beyond).',
    tags: ['auth'],
    permission: 'public',
    body: LOGIN_REQUEST_SCHEMA,
    responses: {
      200: { description: 'Signed in', schema: LOGIN_RESPONSE_SCHEMA },
      401: { description: 'Unknown user or wrong password (the same answer for both)' },
      429: { description: 'Too many failed logins for this name from this client, or from this client altogether; see Retry-After' },
    },
    async handler(req): Promise<LoginResponse> {
      const client = req.ip;
      const { username, password } = req.body;
      const attempted = (outcome: 'success' | 'failure' | 'refused') => ctx.events.publishAwaited('SignInAttempted', { user: username, address: client, outcome });
      const attempt = throttle.begin(client, username);
      if ('retryAfterSeconds' in attempt) {
        await attempted('refused');
        throw new HttpError(429, 'GW_ERR_LOGIN_RATE_LIMIT', 'too many failed logins; try again later', { headers: { 'Retry-After': String(attempt.retryAfterSeconds) } });
      }
      try {
        if (attempt.delayMs > 0) await sleep(attempt.delayMs);
        const user = await auth.verifyPassword(username, password);
        if (!user) {
          await attempted('failure');
          throw new HttpError(401, 'GW_ERR_BAD_LOGIN', 'unknown user or wrong password');
        }
        attempt.succeeded();
        const issued = await auth.tokens.issue(user.username);
        await attempted('success');
        return { token: issued.token, expiresAt: issued.expiresAt, user };
      } finally {
        attempt.end();
      }
    },
  });
  ctx.http.route({
    method: 'get',
    path: '/auth/me',
    summary: 'The signed-in user and their permissions',
    tags: ['auth'],
    permission: 'authenticated',
    responses: { 200: { description: 'The user', schema: ComponentRef('AuthenticatedUser', AUTHENTICATED_USER_SCHEMA) } },
    handler: (req) => req.user,
  });
  ctx.http.route({
    method: 'post',
    path: '/auth/logout',
    summary: 'Revoke the bearer token of this request',
    tags: ['auth'],
    permission: 'authenticated',
    responses: { 204: { description: 'Revoked' } },
    async handler(req) {
      const token = /^Bearer\s+(.+)$/i.exec(req.header('Authorization'))?.[1];
      if (token) await auth.tokens.revoke(token.trim());
    },
  });
}
