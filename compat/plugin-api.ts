/**
 * `amt-gateway/plugin-api`, as plugins written against kernel API 1.0-1.2 know it: the kernel's
 * contract (`amt-gateway/kernel`) and, type-only, every built-in plugin's public types, so that
 * `import { definePlugin, type Device } from 'amt-gateway/plugin-api'` and `ctx.use('devices')`
 * keep compiling unchanged.
 *
 * @deprecated since kernel API 1.3: import the kernel's contract from `amt-gateway/kernel` and a
 * plugin's types from that plugin's entry point (`amt-gateway/devices`, `amt-gateway/cira`, ...).
 * This module stays for the 1.x line; the kernel itself never imports it.
 */
export * from '../core/plugin-api.js';
export type * from '../plugins/devices/public.js';
export type * from '../plugins/rest-api/public.js';
export type * from '../plugins/remote-monitor/public.js';
export type * from '../plugins/power-mgmt/public.js';
export type * from '../plugins/cira/public.js';
export type * from '../plugins/soap-mps/public.js';
export type * from '../plugins/scan-hub/public.js';
export type * from '../plugins/audit/public.js';
export type * from '../plugins/metrics/public.js';
