/**
 * `POST /api/redirection/ider/bulk`: boot many devices from one image. Per device (a bounded number
 * at once): an IDE-R session serving the image (an open one is reused), then the power action with
 * the IDE-R boot. Every device gets a result; one that fails carries the problem a single request
 * would have given, and a session opened for a device whose power action failed is ended again.
 */
import { Type } from '@sinclair/typebox';
import { HttpError, isHttpError, type Logger, type PluginContext } from '../../core/plugin-api.js';
import type { PowerService } from 'amt-gateway/power-mgmt';
import { createSemaphore } from '../../core/util/semaphore.js';
import { StringEnum } from '../../core/validation/schema-types.js';
import type { RedirectionConfig } from './config.js';
import type { IderService } from './ider-service.js';
import { PERMISSION } from './session-service.js';
import type { SessionService } from './session-service.js';

const POWER_CONTROL = 'power:control';

function bulkRequestSchema(maxDevices: number) {
  return Type.Object(
    {
      deviceIds: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: maxDevices, uniqueItems: true }),
      cd: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
      floppy: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
      boot: StringEnum(['ider-cd', 'ider-floppy'] as const),
      action: StringEnum(['on', 'reset', 'cycle'] as const),
    },
    { additionalProperties: false, anyOf: [{ required: ['cd'] }, { required: ['floppy'] }] },
  );
}

const BULK_RESULT_SCHEMA = Type.Object({
  total: Type.Integer(),
  succeeded: Type.Integer(),
  failed: Type.Integer(),
  results: Type.Array(
    Type.Object({
      deviceId: Type.String(),
      ok: Type.Boolean({ description: 'Session open and the power action accepted' }),
      sessionId: Type.Union([Type.String(), Type.Null()]),
      returnValue: Type.Union([Type.Integer(), Type.Null()], { description: 'ReturnValue of the power change' }),
      confirmed: Type.Boolean(),
      error: Type.Optional(Type.Object({ status: Type.Integer(), code: Type.String(), detail: Type.String() })),
    }),
    { description: 'One per requested device, in request order' },
  ),
});

export function registerIderBulkRoute(ctx: PluginContext<RedirectionConfig>, ider: IderService, sessions: SessionService, power: PowerService | undefined, logger: Logger): void {
  const limit = createSemaphore(ctx.config.ider.bulkConcurrency);
  const audit = ctx.useOptional('audit');
  ctx.http.route({
    method: 'post',
    path: '/ider/bulk',
    summary: 'Boot many devices from one image (IDE-R session and power action per device)',
    description: `At most \`ider.bulkMaxDevices\` (${ctx.config.ider.bulkMaxDevices}) devices, \`ider.bulkConcurrency\` (${ctx.config.ider.bulkConcurrency}) at once. Needs \`${POWER_CONTROL}\` besides \`${PERMISSION}\`.`,
    tags: ['redirection'],
    permission: PERMISSION,
    body: bulkRequestSchema(ctx.config.ider.bulkMaxDevices),
    responses: { 200: { description: 'One result per device', schema: BULK_RESULT_SCHEMA }, 403: { description: `Without \`${POWER_CONTROL}\`` }, 422: { description: 'power-mgmt is off' } },
    async handler(req) {
      if (!req.user!.permissions.includes(POWER_CONTROL)) throw new HttpError(403, 'GW_ERR_FORBIDDEN', `booting devices needs the permission '${POWER_CONTROL}'`);
      if (!power) throw new HttpError(422, 'GW_ERR_POWER_DISABLED', 'booting devices needs the power-mgmt plugin');
      const { deviceIds, cd, floppy, boot, action } = req.body;
      const kind = boot === 'ider-cd' ? 'cd' : 'floppy';
      const one = async (deviceId: string) => {
        let opened: string | null = null;
        try {
          const existing = ider.forDevice(deviceId);
          const sessionId = existing && existing[kind] !== null ? existing.id : (opened = (await ider.open(req.user!, deviceId, { cd, floppy }, req.ip)).id);
          const changed = await power.change(deviceId, action, boot);
          if (!changed.ok && opened) sessions.end(opened, { user: req.user!.username, address: req.ip });
          return { deviceId, ok: changed.ok, sessionId, returnValue: changed.returnValue, confirmed: changed.confirmed };
        } catch (err) {
          if (opened) sessions.end(opened, { user: req.user!.username, address: req.ip });
          const error = isHttpError(err)
            ? { status: err.status, code: err.code, detail: (err.expose ?? err.status < 500) ? err.message : 'the gateway could not complete the boot' }
            : { status: 500, code: 'GW_ERR_INTERNAL', detail: 'internal error' };
          if (!isHttpError(err)) logger.error('bulk IDE-R boot failed', { deviceId, error: err instanceof Error ? err.message : String(err) });
          return { deviceId, ok: false, sessionId: null, returnValue: null, confirmed: false, error };
        }
      };
      const results = await Promise.all(deviceIds.map((id) => limit.run(() => one(id))));
      await Promise.all(results.map((r) => audit?.record({ by: req, action: 'remote.ider.boot', target: r.deviceId, outcome: r.ok ? 'success' : 'failure', detail: { boot, action, cd: cd ?? null, floppy: floppy ?? null, bulk: true, ...(r.error ? { error: r.error.code } : {}) } })));
      const succeeded = results.filter((r) => r.ok).length;
      return { total: results.length, succeeded, failed: results.length - succeeded, results };
    },
  });
}
