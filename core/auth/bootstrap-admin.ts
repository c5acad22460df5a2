import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../log/logger.js';
import { ALL_PERMISSIONS } from './core-permissions.js';
import { hashPassword } from './password-hash.js';
import { newUserId, type UserStore } from './user-store.js';

export interface BootstrapResult {
  created: boolean;
  /** Set only when the password was generated (to print it once). */
  generatedPassword?: string;
}

/**
 * On first start with no users, creates `admin` with every permission. The password comes from
 * AMTGW_ADMIN_PASSWORD, or is generated, printed once to the console and written to an
 * owner-only file.
 */
export async function bootstrapAdmin(users: UserStore, passwordFile: string, logger: Logger, env: NodeJS.ProcessEnv = process.env): Promise<BootstrapResult> {
  if (await users.hasAny()) return { created: false };
  const fromEnv = env.AMTGW_ADMIN_PASSWORD;
  const password = fromEnv && fromEnv.length > 0 ? fromEnv : randomBytes(18).toString('base64url');
  const now = new Date().toISOString();
  await users.put({ id: newUserId(), username: 'admin', passwordHash: await hashPassword(password), permissions: [ALL_PERMISSIONS], createdAt: now, updatedAt: now });
  if (fromEnv) {
    logger.info('created the admin user with the password from AMTGW_ADMIN_PASSWORD');
    return { created: true };
  }
  mkdirSync(dirname(passwordFile), { recursive: true, mode: 0o700 });
  writeFileSync(passwordFile, password + '\n', { mode: 0o600 });
  // Printed once on purpose, outside the structured log, as the contract requires.
  process.stderr.write(`\namt-gateway: created user 'admin' with password ${password}\n(also written to ${passwordFile}, readable only by this user)\n\n`);
  logger.info('created the admin user with a generated password', { file: passwordFile });
  return { created: true, generatedPassword: password };
}
