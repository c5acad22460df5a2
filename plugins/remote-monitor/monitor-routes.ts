/** `GET /api/monitor/online`, `GET /api/monitor/summary` and `GET /api/monitor/schedule`. */
import type { PluginContext } from '../../core/plugin-api.js';
import type { DeviceRegistry } from 'amt-gateway/devices';
import { MONITOR_SCHEDULE_SCHEMA, MONITOR_SUMMARY_SCHEMA, ONLINE_ENTRY_SCHEMA, ONLINE_QUERY, type MonitorSchedule, type MonitorSummary, type OnlineEntry } from './monitor-schemas.js';
import type { PresenceStates } from './presence-states.js';
import type { SweepScheduler } from './sweep-scheduler.js';


const TOTAL = { 'X-Total-Count': { description: 'Number of matching devices', schema: { type: 'integer' } } };

export function registerMonitorRoutes(ctx: PluginContext, devices: DeviceRegistry, states: PresenceStates, scheduler: SweepScheduler, allows: (address: string) => boolean): void {
  ctx.openapi.addSchema('OnlineEntry', ONLINE_ENTRY_SCHEMA);
  ctx.openapi.addSchema('MonitorSummary', MONITOR_SUMMARY_SCHEMA);
  ctx.openapi.addSchema('MonitorSchedule', MONITOR_SCHEDULE_SCHEMA);
  const tags = ['monitor'];

  const entries = (): OnlineEntry[] =>
    devices.list().map((device) => {
      const state = states.get(device.id);
      return {
        deviceId: device.id,
        ipAddress: device.ipAddress,
        hostname: device.hostname,
        // What presence merged from every path (the monitor's LAN answers among them).
        online: device.online,
        since: state?.since ?? null,
        lastSeen: state?.lastSeen ?? device.lastSeen,
        // A tunnelled device's presence comes from its tunnel, not from probes of its address.
        ...(allows(device.ipAddress) || device.connections?.includes('cira') ? {} : { notMonitored: 'outside-allowed-networks' as const }),
      };
    });

  ctx.http.route({
    method: 'get',
    path: '/online',
    summary: 'Online state of every known device',
    description: 'Ordered by address. `since` is when the device entered its state; states survive restarts.',
    tags,
    permission: 'monitor:read',
    query: ONLINE_QUERY,
    responses: { 200: { description: 'Online states', schema: { type: 'array', items: { $ref: '#/components/schemas/OnlineEntry' } }, headers: TOTAL } },
    handler(req, reply) {
      const { online, offset, limit } = req.query;
      const all = entries();
      const matching = online === undefined ? all : all.filter((e) => e.online === online);
      reply.header('X-Total-Count', String(matching.length));
      return limit === undefined ? matching.slice(offset) : matching.slice(offset, offset + limit);
    },
  });

  ctx.http.route({
    method: 'get',
    path: '/summary',
    summary: 'How many known devices are online, offline and unauthorized',
    tags,
    permission: 'monitor:read',
    responses: { 200: { description: 'Counts', schema: { $ref: '#/components/schemas/MonitorSummary' } } },
    handler(): MonitorSummary {
      let online = 0;
      let unauthorized = 0;
      const all = devices.list();
      for (const device of all) {
        if (device.online) online++;
        if (device.authStatus === 'unauthorized' || device.authStatus === 'locked-out-risk') unauthorized++;
      }
      return { total: all.length, online, offline: all.length - online, unauthorized };
    },
  });

  ctx.http.route({
    method: 'get',
    path: '/schedule',
    summary: 'Whether the online monitor keeps up with its schedule',
    description: 'Probes are spread over the interval; `keepingUp` is false while devices wait for capacity or are probed more than two ticks late.',
    tags,
    permission: 'monitor:read',
    responses: { 200: { description: 'Schedule statistics', schema: { $ref: '#/components/schemas/MonitorSchedule' } } },
    handler: (): MonitorSchedule => scheduler.stats(),
  });
}
