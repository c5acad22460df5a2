/**
 * A plugin's own sign-in door goes through the kernel's one throttle (`ctx.auth.signIn`): failures
 * there and at `POST /api/auth/login` share one budget per address and name, and the audit trail
 * names the plugin's door. The deprecated `verifyPassword` is throttled too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { ADMIN_PASSWORD, startTestGateway } from '../helpers/gateway-harness.js';

const DOOR = fileURLToPath(new URL('../fixtures/plugins/sign-in-door/', import.meta.url));

test("a plugin's door and the REST login share one budget, and its attempts are audited under its door", async () => {
  const gw = await startTestGateway({
    plugins: ['audit'],
    overrides: { auth: { login: { freeFailures: 3, maxFailures: 4, windowSeconds: 900, delayStepMs: 1 } }, plugins: { 'sign-in-door': { enable: true, path: DOOR } } },
  });
  try {
    const auditor = await gw.userWith(['audit:read'], 'auditor');
    const door = (password: string, door?: string) => gw.request('POST', '/api/sign-in-door/check', { body: { username: 'admin', password, ...(door ? { door } : {}) } });
    assert.equal((await door(ADMIN_PASSWORD)).status, 200);
    for (let i = 0; i < 2; i++) assert.equal((await door(`guess-${i}`)).status, 401);
    for (let i = 0; i < 2; i++) assert.equal((await gw.request('POST', '/api/auth/login', { body: { username: 'admin', password: `guess-rest-${i}` } })).status, 401);
    assert.equal((await door(ADMIN_PASSWORD)).status, 429, 'four failures at either door: the name is throttled at both');
    const res = await gw.request('GET', '/api/audit?class=sign-in-failures', { token: auditor });
    const doors = ((await res.json()) as Array<{ detail: { door: string } }>).map((r) => r.detail.door).sort();
    assert.deepEqual(doors, ['agent', 'rest']);
    assert.equal((await door(ADMIN_PASSWORD, 'Not A Door')).status, 500, 'a door name outside a-z0-9- is a programming error');
  } finally {
    await gw.cleanup();
  }
});
