/**
 * The kernel's own routes (auth, users, health) as an internal plugin named `core`: they are
 * registered, authorised, validated and documented through the same contract as any plugin's.
 */
import { definePlugin, KERNEL_API_VERSION, type PluginDefinition } from './plugin-api.js';
import type { AuthService } from './auth/auth-service.js';
import type { SignInService } from './auth/sign-in.js';
import { CORE_PERMISSIONS } from './auth/core-permissions.js';
import { registerAuthRoutes } from './auth/auth-routes.js';
import { registerUserRoutes } from './auth/user-routes.js';
import { AUTHENTICATED_USER_SCHEMA, USER_SCHEMA } from './auth/user-schemas.js';
import { registerHealthRoute } from './http/health-route.js';
import type { StoreStatus } from './store/level-store.js';
import type { ReadinessRegistry } from './health/readiness.js';

/** The name the kernel goes by wherever plugins are named (routes, listeners, log lines). */
export const CORE_PLUGIN = 'core';

export interface CorePluginParts {
  version: string;
  auth: AuthService;
  signIn: SignInService;
  /** Names of the registered plugins, for the health answer. */
  plugins: () => string[];
  store: () => StoreStatus;
  readiness: ReadinessRegistry;
}

export function corePlugin(parts: CorePluginParts): PluginDefinition<Record<string, unknown>> {
  return definePlugin({
    name: CORE_PLUGIN,
    version: parts.version,
    kernel: KERNEL_API_VERSION.split('.')[0]!,
    prefix: '/api',
    permissions: CORE_PERMISSIONS,
    register(ctx) {
      ctx.openapi.addTag('auth', 'Sign-in and tokens');
      ctx.openapi.addTag('users', 'Gateway users and permissions');
      ctx.openapi.addTag('health', 'Liveness and readiness');
      ctx.openapi.addSchema('User', USER_SCHEMA);
      ctx.openapi.addSchema('AuthenticatedUser', AUTHENTICATED_USER_SCHEMA);
      registerAuthRoutes(ctx, parts.auth, parts.signIn);
      ctx.onClose(() => parts.signIn.close());
      registerUserRoutes(ctx, parts.auth);
      registerHealthRoute(ctx, { version: parts.version, plugins: parts.plugins, store: parts.store, readiness: parts.readiness });
    },
  });
}
