/** `POST /api/activation/codes`: a one-time code an operator types instead of a device's AMT password. */
import type { PluginContext } from '../../../core/plugin-api.js';
import { ActivationErrors } from '../errors.js';
import { CODE_REQUEST_SCHEMA, CODE_SCHEMA } from '../schemas.js';
import type { ActionCodes } from '../store/action-codes.js';

export function registerCodeRoutes(ctx: PluginContext, codes: ActionCodes, hasPassword: (uuid: string) => boolean, validSeconds: number): void {
  ctx.openapi.addSchema('ActivationCode', CODE_SCHEMA);
  ctx.http.route({
    method: 'post',
    path: '/codes',
    summary: 'A one-time code for deactivating or maintaining a device',
    description:
      'A device activated with a generated password has one nobody knows. The operator types this code where rpc-go asks for the AMT password (`rpc deactivate --password CODE`); ' +
      'it works once, for this device, within `codeValidSeconds` (default 15 minutes), also after a restart and on any gateway sharing the store (only its hash is kept). A new code replaces the one before. The device\'s password never leaves the gateway.',
    tags: ['activation'],
    permission: 'activation:manage',
    body: CODE_REQUEST_SCHEMA,
    responses: { 201: { description: 'The code', schema: { $ref: '#/components/schemas/ActivationCode' } }, 409: { description: 'No password of this device is stored here' } },
    async handler(req, reply) {
      const uuid = req.body.uuid.toLowerCase();
      if (!hasPassword(uuid)) throw ActivationErrors.noStoredPassword(uuid);
      const issued = await codes.issue(uuid, validSeconds);
      await ctx.useOptional('audit')?.record({ by: req, action: 'activation.code.issue', target: uuid, detail: { expiresAt: issued.expiresAt } });
      reply.status(201);
      return { uuid, ...issued };
    },
  });
}
