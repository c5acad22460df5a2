/** Options of the images plugin (`plugins.images.options`); the type is the schema's. */
import { Type, type Static } from '@sinclair/typebox';
import { NullableString, Section } from '../../core/validation/schema-types.js';

export const IMAGES_CONFIG_SCHEMA = Section({
  /**
   * Where image files live; default `<dataDir>/images`. In a cluster point every instance at the
   * same shared directory (NFS, SMB, CephFS): any instance may serve any image.
   */
  directory: NullableString({ default: null }),
  /** Largest image accepted (8 GiB: a dual-layer DVD). */
  maxBytes: Type.Integer({ minimum: 1024, maximum: 64 * 1024 ** 3, default: 8 * 1024 ** 3 }),
  /** Images stored, at most. */
  maxImages: Type.Integer({ minimum: 1, maximum: 10000, default: 200 }),
  /** Uploads running at once, at most (each holds a disk writer). */
  maxUploads: Type.Integer({ minimum: 1, maximum: 64, default: 4 }),
  /** An upload that sends nothing for this long is abandoned (its partial file removed). */
  uploadIdleSeconds: Type.Integer({ minimum: 1, maximum: 3600, default: 60 }),
});

export type ImagesConfig = Static<typeof IMAGES_CONFIG_SCHEMA>;
