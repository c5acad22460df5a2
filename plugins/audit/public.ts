/**
 * The typed entry point of the `audit` plugin for other plugins: its services, data shapes and
 * events (importing it also brings its augmentations of `GatewayServices` / `GatewayEvents`).
 * Published as `amt-gateway/audit`.
 */
export type * from './api.js';
