/** `GET /api/monitor/{deviceId}/hardware` and `GET /api/monitor/{deviceId}/events`: reads of one device. */
import type { PluginContext } from '../../core/plugin-api.js';
import type { DeviceGate, DeviceRegistry, DeviceRunOptions } from 'amt-gateway/devices';
import { monitorEvent } from './event-view.js';
import { hardwareReport } from './hardware-view.js';
import { EVENTS_QUERY, HARDWARE_REPORT_SCHEMA, MONITOR_EVENT_SCHEMA } from './monitor-schemas.js';

/** AMT keeps at most 390 records; the bound only protects against a device that claims more. */
const MAX_EVENT_RECORDS = 1000;

const params = { deviceId: { description: 'Device id' } };

export function registerDeviceRoutes(ctx: PluginContext, devices: DeviceRegistry, gate: DeviceGate, bounds: DeviceRunOptions): void {
  ctx.openapi.addSchema('HardwareReport', HARDWARE_REPORT_SCHEMA);
  ctx.openapi.addSchema('MonitorEvent', MONITOR_EVENT_SCHEMA);
  const tags = ['monitor'];
  const deviceFailures = gate.problemResponses;
  const known = (id: string) => devices.require(id);

  ctx.http.route({
    method: 'get',
    path: '/:deviceId/hardware',
    summary: "A device's hardware: system, baseboard, BIOS, processors, memory and storage",
    description: 'Read from the CIM inventory classes of the device at request time.',
    tags,
    permission: 'monitor:read',
    params,
    responses: { 200: { description: 'The hardware report', schema: { $ref: '#/components/schemas/HardwareReport' } }, ...deviceFailures },
    async handler(req) {
      const device = known(req.params.deviceId);
      const value = await gate.run(device, 'inventory', {}, bounds);
      return hardwareReport(device.id, value.classes, value.summary, device.uuid ?? null);
    },
  });

  ctx.http.route({
    method: 'get',
    path: '/:deviceId/events',
    summary: "A device's AMT event log, decoded, newest first",
    description: 'Each record with its time (device clock), source, severity and description. Paged with `offset` and `limit` (default 100); `X-Total-Count` is the number of records.',
    tags,
    permission: 'monitor:read',
    params,
    query: EVENTS_QUERY,
    responses: {
      200: {
        description: 'Event log records',
        schema: { type: 'array', items: { $ref: '#/components/schemas/MonitorEvent' } },
        headers: { 'X-Total-Count': { description: 'Records in the log', schema: { type: 'integer' } } },
      },
      ...deviceFailures,
    },
    async handler(req, reply) {
      const device = known(req.params.deviceId);
      const { offset, limit } = req.query;
      const value = await gate.run(device, 'event-log', { maxRecords: MAX_EVENT_RECORDS }, bounds);
      reply.header('X-Total-Count', String(value.records.length));
      return value.records.slice(offset, offset + limit).map(monitorEvent);
    },
  });
}
