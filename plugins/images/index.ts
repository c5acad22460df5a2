/**
 * images: boot images (CD ISOs, floppy images) uploaded once to the gateway and served to devices
 * by IDE redirection. Records in the store (backed up as references), bytes in files under the image
 * directory. See README.md.
 */
import { join, resolve } from 'node:path';
import { definePlugin } from '../../core/plugin-api.js';
import './api.js';
import { IMAGES_CONFIG_SCHEMA } from './config.js';
import { createImageStore } from './image-store.js';
import { MANAGE, registerImageRoutes } from './image-routes.js';

export default definePlugin({
  name: 'images',
  version: '1.0.0',
  kernel: '1',
  dependencies: [],
  optionalDependencies: ['audit'],
  prefix: '/api/images',
  permissions: [{ name: MANAGE, description: 'Upload and delete boot images (IDE redirection)' }],
  routes: [{ path: '/images', name: 'images', meta: { title: 'Images', icon: 'disc', permission: 'remote:connect', order: 75 } }],
  configSchema: IMAGES_CONFIG_SCHEMA,
  async register(ctx) {
    const directory = resolve(ctx.config.directory ?? join(ctx.site.dataDir, 'images'));
    const images = createImageStore({ directory, store: ctx.store, logger: ctx.logger, maxImages: ctx.config.maxImages });
    await images.load();
    ctx.provide('images', images.service());
    registerImageRoutes(ctx, images);
  },
});
