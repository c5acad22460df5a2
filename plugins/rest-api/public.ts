/**
 * The typed entry point of the `rest-api` plugin for other plugins: its services, data shapes and
 * events (importing it also brings its augmentations of `GatewayServices` / `GatewayEvents`).
 * the scans and their events (`amt-gateway/rest-api`). The device domain's types are the `devices`
 * plugin's (`amt-gateway/devices`); they are re-exported here for plugins written before the split.
 */
export type * from './api.js';
