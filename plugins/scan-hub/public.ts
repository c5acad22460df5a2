/**
 * The typed entry point of the `scan-hub` plugin for other plugins: its services, data shapes and
 * events (importing it also brings its augmentations of `GatewayServices` / `GatewayEvents`).
 * Published as `amt-gateway/scan-hub`.
 */
export type * from './api.js';
