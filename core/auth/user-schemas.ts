/**
 * The kernel's user shapes as its routes answer them: a gateway user, the signed-in user, and the
 * answer to a sign-in. TypeBox schemas, their types derived; TypeBox only, so that the console can
 * import the types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime } from '../validation/schema-types.js';

const USER_ID = Type.String({ description: "The user's immutable id: a user deleted and created again under the same name has another" });
const PERMISSIONS = Type.Array(Type.String(), { description: 'Effective permissions (wildcards expanded)' });

/**
 * The signed-in user (`GET /api/auth/me`), and what routes read as `req.user`; bind what outlives a
 * request (a session, a ticket) to its `id`, never to the name.
 */
export const AUTHENTICATED_USER_SCHEMA = Type.Object({ id: USER_ID, username: Type.String(), permissions: PERMISSIONS });

export type AuthenticatedUser = Static<typeof AUTHENTICATED_USER_SCHEMA>;

/** A gateway user as `/api/users` answers it (never its password). */
export const USER_SCHEMA = Type.Object({ id: USER_ID, username: Type.String(), permissions: PERMISSIONS, createdAt: DateTime(), updatedAt: DateTime() });

export type User = Static<typeof USER_SCHEMA>;

/** What `POST /api/auth/login` answers. */
export const LOGIN_RESPONSE_SCHEMA = Type.Object({ token: Type.String(), expiresAt: DateTime(), user: AUTHENTICATED_USER_SCHEMA });

export type LoginResponse = Static<typeof LOGIN_RESPONSE_SCHEMA>;
