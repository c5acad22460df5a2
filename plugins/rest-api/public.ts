/**
 * The typed entry point of the `rest-api` plugin for other plugins: its services, data shapes and
 * events (importing it also brings its augmentations of `GatewayServices` / `GatewayEvents`).
 * the device registry, credential vault and device access (`devices`, `credentials`, `deviceAccess`), the scans and their events. Published as `amt-gateway/devices` and `amt-gateway/rest-api`.
 */
export type * from './api.js';
