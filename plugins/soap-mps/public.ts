/**
 * The typed entry point of the `soap-mps` plugin for other plugins: its services, data shapes and
 * events (importing it also brings its augmentations of `GatewayServices` / `GatewayEvents`).
 * Published as `amt-gateway/soap-mps`.
 */
export type * from './api.js';
