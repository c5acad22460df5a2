/**
 * The typed entry point of the `activation` plugin for other plugins: its data shapes and events
 * (importing it also brings its augmentation of `GatewayEvents`). Published as `amt-gateway/activation`.
 */
export type * from './api.js';
