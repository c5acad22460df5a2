/** What plugins get as `ctx.auth`: the kernel's authentication with its throttled sign-in. */
import type { PluginAuth } from '../plugin-api.js';
import type { AuthService } from './auth-service.js';
import type { SignInService } from './sign-in.js';
import { createLoginThrottle } from './login-throttle.js';

export function kernelPluginAuth(auth: AuthService, signIn: SignInService): PluginAuth {
  return {
    verifyToken: (token) => auth.verifyToken(token),
    signIn: (request) => signIn.signIn(request),
    // Replaced in each plugin's context, where the plugin's name stands for the client address.
    verifyPassword: async (username, password) => {
      const result = await signIn.signIn({ username, password, address: 'plugin', door: 'plugin' });
      return result.outcome === 'success' ? result.user : null;
    },
    attemptThrottle: (options) => createLoginThrottle(options),
    tokenId: (token) => auth.tokenId(token),
    userById: (id) => auth.userById(id),
    allPermissions: () => auth.allPermissions(),
    currentUser: (username) => auth.currentUser(username),
  };
}
