/**
 * power-mgmt: read and change the power state of devices, one or many at a time, each an operation
 * of the device gate. Every change is confirmed by re-reading the state and published as PowerStateChanged.
 * See README.md.
 */
import { definePlugin } from '../../core/plugin-api.js';
import './api.js';
import { POWER_MGMT_CONFIG_SCHEMA } from './config.js';
import { registerPowerRoutes } from './power-routes.js';
import { createPowerService } from './power-service.js';

export default definePlugin({
  name: 'power-mgmt',
  version: '1.0.0',
  kernel: '1',
  dependencies: ['devices'],
  optionalDependencies: ['audit'],
  prefix: '/api/power',
  permissions: [
    { name: 'power:read', description: 'Read device power states' },
    { name: 'power:control', description: 'Change device power states' },
  ],
  routes: [{ path: '/power', name: 'power', meta: { title: 'Power', icon: 'power', permission: 'power:read', order: 60 } }],
  configSchema: POWER_MGMT_CONFIG_SCHEMA,
  register(ctx) {
    const devices = ctx.use('devices');
    const power = createPowerService({ devices, gate: ctx.use('deviceGate'), events: ctx.events, logger: ctx.logger, config: ctx.config });
    ctx.provide('power', power);
    registerPowerRoutes(ctx, power);
  },
});
