/**
 * The typed entry point of the `power-mgmt` plugin for other plugins: its services, data shapes and
 * events (importing it also brings its augmentations of `GatewayServices` / `GatewayEvents`).
 * Published as `amt-gateway/power-mgmt`.
 */
export type * from './api.js';
