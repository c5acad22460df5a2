import type { PluginContext } from '../../../core/plugin-api.js';
import { sendBufferParts } from './buffer-parts-body.js';
import { jsonArrayBuffer, jsonArrayStream } from './json-array-body.js';
import type { DeviceFilter } from '../api.js';
import { DeviceErrors } from '../errors.js';
import type { ManagedDeviceRegistry } from './device-registry.js';
import { DEVICE_LIST_QUERY, DEVICE_SCHEMA, DEVICE_STATUS_CHANGED_EVENT_SCHEMA } from './device-schemas.js';

const REF = { $ref: '#/components/schemas/Device' };
const params = { id: { description: 'Device id' } };
/** Longer lists are streamed. */
const PAGE_AT_ONCE = 500;
const TOTAL = { 'X-Total-Count': { description: 'Number of devices matching the filters', schema: { type: 'integer' } } };

/** `GET /api/devices` (fixed), `GET /api/devices/{id}`, `DELETE /api/devices/{id}` (fixed). */
export function registerDeviceRoutes(ctx: PluginContext, devices: ManagedDeviceRegistry): void {
  ctx.openapi.addSchema('Device', DEVICE_SCHEMA);
  // Not answered by a route: the payload of DeviceStatusChanged, which /scanHub sends.
  ctx.openapi.addSchema('DeviceStatusChangedEvent', DEVICE_STATUS_CHANGED_EVENT_SCHEMA);
  ctx.openapi.addTag('devices', 'Discovered AMT devices');
  const tags = ['devices'];
  const audit = ctx.useOptional('audit');
  ctx.http.route({
    method: 'get',
    path: '/devices',
    summary: 'List devices',
    description: 'Without `limit`, every matching device is returned (streamed). `X-Total-Count` carries the number of matches.',
    tags,
    permission: 'devices:read',
    query: DEVICE_LIST_QUERY,
    responses: { 200: { description: 'Devices ordered by address', schema: { type: 'array', items: REF }, headers: TOTAL } },
    handler(req, reply) {
      const { q, provisioningState, online, offset, limit } = req.query;
      const filter: DeviceFilter = {};
      if (q !== undefined) filter.q = q;
      if (provisioningState !== undefined) filter.provisioningState = provisioningState;
      if (online !== undefined) filter.online = online;
      const matching = devices.list(filter);
      reply.header('X-Total-Count', String(matching.length));
      if (limit !== undefined && limit <= PAGE_AT_ONCE && Object.keys(filter).length === 0) {
        return sendBufferParts(req.method, reply, devices.encodedPage(offset, offset + limit), 'application/json');
      }
      reply.type('application/json');
      const page = limit === undefined ? (offset ? matching.slice(offset) : matching) : matching.slice(offset, offset + limit);
      return page.length <= PAGE_AT_ONCE ? jsonArrayBuffer(page, devices.encoded) : jsonArrayStream(page, devices.encoded);
    },
  });
  ctx.http.route({
    method: 'get',
    path: '/devices/:id',
    summary: 'Get a device',
    tags,
    permission: 'devices:read',
    params,
    responses: { 200: { description: 'The device', schema: REF }, 404: { description: 'Unknown device' } },
    handler(req, reply) {
      const device = devices.get(req.params.id);
      if (!device) throw DeviceErrors.deviceNotFound(req.params.id);
      reply.type('application/json');
      return devices.encoded(device);
    },
  });
  ctx.http.route({
    method: 'delete',
    path: '/devices/:id/tls-pin',
    summary: "Forget a device's pinned TLS certificate",
    description: 'The next contact pins the certificate the device presents then. Use it after replacing a device certificate; until then a changed certificate is refused.',
    tags,
    permission: 'devices:trust',
    params,
    responses: { 200: { description: 'The device, without a pin', schema: REF }, 404: { description: 'Unknown device' } },
    async handler(req) {
      const device = await devices.update(req.params.id, { tlsFingerprint: null });
      if (!device) throw DeviceErrors.deviceNotFound(req.params.id);
      ctx.logger.info('TLS pin reset', { deviceId: device.id, ipAddress: device.ipAddress, user: req.user?.username });
      await audit?.record({ by: req, action: 'device.trust-reset', target: device.id, detail: { ipAddress: device.ipAddress } });
      return device;
    },
  });
  ctx.http.route({
    method: 'delete',
    path: '/devices/:id',
    summary: 'Delete a device',
    tags,
    permission: 'devices:delete',
    params,
    responses: { 204: { description: 'Deleted' }, 404: { description: 'Unknown device' } },
    async handler(req) {
      const ipAddress = devices.get(req.params.id)?.ipAddress;
      if (!(await devices.delete(req.params.id))) throw DeviceErrors.deviceNotFound(req.params.id);
      await audit?.record({ by: req, action: 'device.delete', target: req.params.id, detail: { ipAddress } });
      ctx.events.publish('DeviceRemoved', { deviceId: req.params.id });
    },
  });
}
