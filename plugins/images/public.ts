/**
 * The typed entry point of the `images` plugin for other plugins (`amt-gateway/images`): the
 * `images` service and the image shape. Importing it also brings its augmentation of `GatewayServices`.
 */
export type * from './api.js';
