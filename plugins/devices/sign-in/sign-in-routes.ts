/** `GET /api/devices/{id}/sign-in` (why a device is unauthorized) and `DELETE` (reset its sign-in memory). */
import type { PluginContext } from '../../../core/plugin-api.js';
import type { CredentialVault, DeviceRegistry } from '../api.js';
import { DeviceErrors } from '../errors.js';
import type { SignInMemory } from './sign-in-memory.js';
import { currentSignInKey, signInKey, tunnelOnly } from './sign-in-key.js';
import { SIGN_IN_SCHEMA, type DeviceSignIn } from './sign-in-schemas.js';

const params = { id: { description: 'Device id' } };

export function registerSignInRoutes(ctx: PluginContext, devices: DeviceRegistry, vault: CredentialVault, memory: SignInMemory): void {
  ctx.openapi.addSchema('DeviceSignIn', SIGN_IN_SCHEMA);
  const ref = { $ref: '#/components/schemas/DeviceSignIn' };
  const known = (id: string) => {
    const device = devices.get(id);
    if (!device) throw DeviceErrors.deviceNotFound(id);
    return device;
  };
  const describe = (deviceId: string): DeviceSignIn => {
    const device = known(deviceId);
    const view = memory.view(currentSignInKey(memory, device));
    const names = new Map(vault.list().map((c) => [c.id, c.name]));
    return {
      deviceId: device.id,
      ipAddress: device.ipAddress,
      authStatus: device.authStatus,
      consecutiveFailures: view.consecutiveFailures,
      budget: view.budget,
      remaining: view.remaining,
      lastFailureAt: view.lastFailureAt,
      lastSuccessAt: view.lastSuccessAt,
      lockedOutAt: view.lockedOutAt,
      workingCredentialId: view.workingCredential?.credentialId ?? null,
      refused: view.refused.map((r) => ({ credentialId: r.credentialId, name: names.get(r.credentialId) ?? null, at: r.at })),
      untried: [...names.keys()].filter((id) => !view.refused.some((r) => r.credentialId === id) && id !== view.workingCredential?.credentialId),
      paused: view.pause,
    };
  };

  ctx.http.route({
    method: 'get',
    path: '/devices/:id/sign-in',
    summary: "A device's sign-in memory: why it is unauthorized or paused",
    description:
      'Which stored credentials the device refused (not tried there again until their password changes), its failed logins in a row against the budget kept below its lockout, and whether sign-ins are paused.',
    tags: ['devices'],
    permission: 'devices:read',
    params,
    responses: { 200: { description: 'The sign-in memory of the device', schema: ref }, 404: { description: 'Unknown device' } },
    handler: (req) => describe(req.params.id),
  });

  ctx.http.route({
    method: 'delete',
    path: '/devices/:id/sign-in',
    summary: "Reset a device's sign-in memory",
    description:
      'Forgets the refused credentials and the failed-login count, so the next operation tries every stored credential again (within the budget). Use it after unlocking the device or fixing its password.',
    tags: ['devices'],
    permission: 'devices:sign-in-reset',
    params,
    responses: { 200: { description: 'The sign-in memory after the reset', schema: ref }, 404: { description: 'Unknown device' } },
    async handler(req) {
      const device = known(req.params.id);
      // Both ways in: the tunnel's memory (by device), and the local network's (by address) unless the
      // device is reached only through its tunnel, whose address is a NAT's that others may share.
      if (!tunnelOnly(device)) await memory.reset(device.ipAddress);
      if (device.uuid || device.connections?.includes('cira')) await memory.reset(signInKey(device, device.ipAddress, true));
      if (device.authStatus === 'locked-out-risk') await devices.update(device.id, { authStatus: 'unauthorized' });
      ctx.logger.info('sign-in memory reset', { deviceId: device.id, ipAddress: device.ipAddress, user: req.user?.username });
      await ctx.useOptional('audit')?.record({ by: req, action: 'device.sign-in-reset', target: device.id, detail: { ipAddress: device.ipAddress } });
      return describe(device.id);
    },
  });
}
