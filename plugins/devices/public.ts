/**
 * The typed entry point of the `devices` plugin for other plugins (`amt-gateway/devices`): the
 * device registry, credential vault, presence and the device gate (`devices`, `credentials`,
 * `devicePresence`, `deviceGate`), the Device and Credential shapes and the device events. Importing
 * it also brings its augmentations of `GatewayServices` / `GatewayEvents`.
 */
export type * from './api.js';
