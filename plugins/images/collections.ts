/** How the PostgreSQL driver lays out the images plugin's records (ignored by LevelDB). */
import type { CollectionDeclaration } from '../../core/plugin-api.js';

export const IMAGES_COLLECTIONS: Record<string, CollectionDeclaration> = {
  '': {
    table: 'boot_images',
    description: "boot images by image:<id>: name, kind, size and SHA-256 (the bytes are files in the image directory, never in the store)",
    fields: { name: { path: 'name', type: 'text' }, kind: { path: 'kind', type: 'text' }, size_bytes: { path: 'sizeBytes', type: 'bigint' }, created_at: { path: 'createdAt', type: 'text' } },
    indexes: [['name']],
  },
};
