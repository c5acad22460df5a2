import { Type } from '@sinclair/typebox';
import type { PluginContext } from '../plugin-api.js';
import { HttpError } from '../http/http-error.js';
import type { AuthService } from './auth-service.js';
import type { SignInService } from './sign-in.js';
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
export function registerAuthRoutes(ctx: PluginContext, auth: AuthService, signIn: SignInService): void {
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
      const { username, password } = req.body;
      const result = await signIn.signIn({ username, password, address: req.ip, door: 'rest' });
      if (result.outcome === 'refused') {
        throw new HttpError(429, 'GW_ERR_LOGIN_RATE_LIMIT', 'too many failed logins; try again later', { headers: { 'Retry-After': String(result.retryAfterSeconds) } });
      }
      if (result.outcome === 'failure') throw new HttpError(401, 'GW_ERR_BAD_LOGIN', 'unknown user or wrong password');
      const issued = await auth.tokens.issue(result.user);
      if (issued.evicted.length > 0) {
        // The user's oldest sign-ins made room: what they opened ends as on a sign-out.
        await ctx.events.publishAwaited('AccessRevoked', { user: result.user.username, address: req.ip, userId: result.user.id, username: result.user.username, reason: 'signed-out', tokenIds: issued.evicted });
      }
      return { token: issued.token, expiresAt: issued.expiresAt, user: result.user };
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
    description: 'Remote console sessions and hub connections opened with this token end at once.',
    tags: ['auth'],
    permission: 'authenticated',
    responses: { 204: { description: 'Revoked' } },
    async handler(req) {
      const token = /^Bearer\s+(.+)$/i.exec(req.header('Authorization'))?.[1];
      if (!token) return;
      const revoked = await auth.tokens.revoke(token.trim());
      const user = req.user!;
      await ctx.events.publishAwaited('AccessRevoked', { user: user.username, address: req.ip, userId: user.id, username: user.username, reason: 'signed-out', tokenIds: [revoked] });
    },
  });
}
