/** `GET /api/power/{deviceId}`, `POST /api/power/{deviceId}` and `POST /api/power/bulk`. */
import type { PluginContext } from '../../core/plugin-api.js';
import type { PowerMgmtConfig } from './config.js';
import { POWER_ACTION_REQUEST_SCHEMA, POWER_BULK_RESULT_SCHEMA, POWER_CHANGE_RESULT_SCHEMA, POWER_STATE_CHANGED_EVENT_SCHEMA, POWER_STATUS_SCHEMA, powerBulkRequestSchema } from './power-schemas.js';
import type { PowerService } from './power-service.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const params = { deviceId: { description: 'Device id' } };

export function registerPowerRoutes(ctx: PluginContext<PowerMgmtConfig>, power: PowerService): void {
  ctx.openapi.addSchema('PowerStatus', POWER_STATUS_SCHEMA);
  ctx.openapi.addSchema('PowerChangeResult', POWER_CHANGE_RESULT_SCHEMA);
  ctx.openapi.addSchema('PowerBulkResult', POWER_BULK_RESULT_SCHEMA);
  // Not answered by a route: the payload of PowerStateChanged, which /scanHub sends.
  ctx.openapi.addSchema('PowerStateChangedEvent', POWER_STATE_CHANGED_EVENT_SCHEMA);
  ctx.openapi.addTag('power', 'Power state of devices: read, change, change many');
  const tags = ['power'];
  const deviceFailures = ctx.use('deviceGate').problemResponses;
  const audit = ctx.useOptional('audit');

  // Before `/:deviceId`, which would otherwise take `bulk` for a device id.
  ctx.http.route({
    method: 'post',
    path: '/bulk',
    summary: 'Change the power state of many devices',
    description: 'Runs the change on the devices concurrently within a bound. Every device gets a result; one that cannot be changed carries the problem a single request would have given.',
    tags,
    permission: 'power:control',
    body: powerBulkRequestSchema(ctx.config.bulk.maxDevices),
    responses: { 200: { description: 'One result per device', schema: ref('PowerBulkResult') } },
    async handler(req) {
      const results = await power.bulk(req.body.deviceIds, req.body.action);
      // One record per device, so that a device's trail shows a change made in bulk too.
      await Promise.all(
        results.results.map((r) =>
          audit?.record({ by: req, action: 'power.change', target: r.deviceId, outcome: r.ok ? 'success' : 'failure', detail: { action: req.body.action, bulk: true, returnValue: r.returnValue, ...(r.error ? { error: r.error.code } : {}) } }),
        ),
      );
      return results;
    },
  });

  ctx.http.route({
    method: 'get',
    path: '/:deviceId',
    summary: "A device's power state and the actions it offers",
    tags,
    permission: 'power:read',
    params,
    responses: { 200: { description: 'The power state', schema: ref('PowerStatus') }, ...deviceFailures },
    handler: (req) => power.read(req.params.deviceId),
  });

  ctx.http.route({
    method: 'post',
    path: '/:deviceId',
    summary: "Change a device's power state",
    description:
      'Refuses (422) an action the device does not offer now, without asking the device to change. An accepted change is confirmed by re-reading the state and published as PowerStateChanged. `ok` is false when the device refused (non-zero `returnValue`). With `boot` (only with `on`, `reset` or `cycle`, else 400) the one-time boot setting is written first; where the device requires consent for everything, `bios` and `pxe` need it given (409 `GW_ERR_CONSENT_REQUIRED`, nothing written).',
    tags,
    permission: 'power:control',
    params,
    body: POWER_ACTION_REQUEST_SCHEMA,
    responses: {
      200: { description: 'The device answered the request', schema: ref('PowerChangeResult') },
      ...deviceFailures,
      409: { description: 'As for every device operation; or `GW_ERR_CONSENT_REQUIRED`: a boot choice needs consent not given' },
      422: { description: 'The device does not offer this action now' },
    },
    handler: (req) =>
      audit?.track({ by: req, action: 'power.change', target: req.params.deviceId, detail: { ...req.body } }, () => power.change(req.params.deviceId, req.body.action, req.body.boot), (r) => ({ ok: r.ok, returnValue: r.returnValue, confirmed: r.confirmed })) ??
      power.change(req.params.deviceId, req.body.action, req.body.boot),
  });
}
