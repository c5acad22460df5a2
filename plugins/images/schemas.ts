/** Schemas of the images routes (added to the OpenAPI document); the types are derived from them. */
import { Type, type Static } from '@sinclair/typebox';
import { NullableString, StringEnum } from '../../core/validation/schema-types.js';

export const IMAGE_KINDS = ['cd', 'floppy'] as const;

export const IMAGE_SCHEMA = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: StringEnum(IMAGE_KINDS, { description: '`cd`: an ISO image served as a CD-ROM (2048-byte blocks); `floppy`: a disk image served as a floppy (512-byte blocks)' }),
  sizeBytes: Type.Integer(),
  sha256: Type.String({ description: 'SHA-256 of the image bytes, computed on upload (hex)' }),
  createdAt: Type.String({ format: 'date-time' }),
  createdBy: NullableString(),
  inUse: Type.Integer({ description: 'IDE-R sessions of this gateway serving it now' }),
  available: Type.Boolean({ description: 'Its file is present on this gateway with the recorded size' }),
});

export type ImageView = Static<typeof IMAGE_SCHEMA>;

export const IMAGE_LIST_SCHEMA = Type.Array(IMAGE_SCHEMA);

export const UPLOAD_QUERY_SCHEMA = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: '^[^/\\\\\\u0000-\\u001f]+$', description: 'Unique name shown in the console (no slashes or control characters)' }),
    kind: StringEnum(IMAGE_KINDS),
  },
  { additionalProperties: false },
);
