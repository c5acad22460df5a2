/** The routes of the images plugin: upload (streamed), list, read, delete. */
import type { PluginContext } from '../../core/plugin-api.js';
import type { ImagesConfig } from './config.js';
import { ImageErrors } from './errors.js';
import type { ImageStore } from './image-store.js';
import { IMAGE_LIST_SCHEMA, IMAGE_SCHEMA, UPLOAD_QUERY_SCHEMA } from './schemas.js';
import { receiveUpload } from './upload.js';

export const MANAGE = 'images:manage';
/** Listing and using images is part of remote access (the permission of the redirection plugin). */
export const USE = 'remote:connect';
const tags = ['images'];
const ref = { $ref: '#/components/schemas/Image' };
const params = { id: { description: 'Image id' } };

export function registerImageRoutes(ctx: PluginContext<ImagesConfig>, images: ImageStore): void {
  ctx.openapi.addSchema('Image', IMAGE_SCHEMA);
  ctx.openapi.addTag('images', 'Boot images served to devices by IDE redirection');
  const audit = ctx.useOptional('audit');
  let uploads = 0;
  ctx.http.route({
    method: 'post',
    path: '/',
    summary: 'Upload an image (the body is the image bytes, streamed to disk)',
    description: `Content-Type application/octet-stream; at most \`maxBytes\` (${ctx.config.maxBytes}). The SHA-256 is computed while the bytes arrive. 409 \`GW_ERR_IMAGE_EXISTS\` for a name taken, 413 \`GW_ERR_IMAGE_TOO_LARGE\`, 415 for another content type, 507 when the disk is full.`,
    tags,
    permission: MANAGE,
    query: UPLOAD_QUERY_SCHEMA,
    responses: {
      201: { description: 'Stored', schema: ref },
      409: { description: 'Name taken, or too many images' },
      413: { description: 'Larger than maxBytes' },
      415: { description: 'Not application/octet-stream' },
      503: { description: 'Too many uploads at once' },
      507: { description: 'No space left' },
    },
    handler: async (req, reply) => {
      if (!req.header('content-type').toLowerCase().startsWith('application/octet-stream')) throw ImageErrors.mediaType();
      const { name, kind } = req.query;
      if (uploads >= ctx.config.maxUploads) throw ImageErrors.uploadsBusy();
      const release = images.reserve(name);
      uploads++;
      const work = async () => {
        const temp = images.uploadPath();
        try {
          const bytes = await receiveUpload(req.raw, temp, ctx.config.maxBytes, ctx.config.uploadIdleSeconds * 1000);
          const record = await images.add(temp, { name, kind, ...bytes, createdAt: new Date().toISOString(), createdBy: req.user?.username ?? null });
          return images.view(record.id);
        } catch (error) {
          release();
          throw error;
        } finally {
          uploads--;
        }
      };
      const image = audit ? await audit.track({ by: req, action: 'image.upload', target: null, detail: { name, kind } }, work, (v) => ({ id: v.id, sizeBytes: v.sizeBytes, sha256: v.sha256 })) : await work();
      reply.status(201);
      return image;
    },
  });
  ctx.http.route({
    method: 'get',
    path: '/',
    summary: 'The uploaded images',
    tags,
    permission: USE,
    responses: { 200: { description: 'By name', schema: IMAGE_LIST_SCHEMA } },
    handler: () => images.list(),
  });
  ctx.http.route({
    method: 'get',
    path: '/:id',
    summary: 'One image',
    tags,
    permission: USE,
    params,
    responses: { 200: { description: 'The image', schema: ref }, 404: { description: 'No such image' } },
    handler: (req) => images.view(req.params.id),
  });
  ctx.http.route({
    method: 'delete',
    path: '/:id',
    summary: 'Delete an image (409 while an IDE-R session serves it)',
    tags,
    permission: MANAGE,
    params,
    responses: { 204: { description: 'Deleted' }, 404: { description: 'No such image' }, 409: { description: '`GW_ERR_IMAGE_IN_USE`' } },
    handler: async (req, reply) => {
      const work = () => images.remove(req.params.id);
      if (audit) await audit.track({ by: req, action: 'image.delete', target: req.params.id }, work, (r) => ({ name: r.name }));
      else await work();
      reply.status(204);
    },
  });
}
