/**
 * The typed entry point of the `remote-monitor` plugin for other plugins: its services, data shapes and
 * events (importing it also brings its augmentations of `GatewayServices` / `GatewayEvents`).
 * Published as `amt-gateway/remote-monitor`.
 */
export type * from './api.js';
