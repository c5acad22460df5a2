/**
 * Public types of the `images` plugin: the `images` service through which IDE redirection opens the
 * images it serves (an image open for a session is in use and cannot be deleted).
 */
import type { IderMedium } from '../../workers/amt/redirection/ider/ider-server.js';

export type ImageKind = 'cd' | 'floppy';

/** An uploaded image, as `GET /api/images` lists it. */
export interface ImageRecord {
  id: string;
  name: string;
  kind: ImageKind;
  sizeBytes: number;
  /** SHA-256 of the bytes, computed while they were uploaded (hex). */
  sha256: string;
  createdAt: string;
  createdBy: string | null;
}

/** An image opened for serving: read it through `medium`; `release` once the session ends. */
export interface OpenedImage {
  image: ImageRecord;
  medium: IderMedium;
  release(): Promise<void>;
}

export interface ImageService {
  get(id: string): ImageRecord | undefined;
  /**
   * Opens an image for reading and marks it in use until released.
   * @throws HttpError 404 `GW_ERR_IMAGE_NOT_FOUND`, 422 `GW_ERR_IMAGE_KIND` (not of `kind`),
   * 503 `GW_ERR_IMAGE_UNAVAILABLE` (its file is missing or changed on this instance).
   */
  open(id: string, kind: ImageKind): Promise<OpenedImage>;
}

declare module '../../core/plugin-api.js' {
  interface GatewayServices {
    images: ImageService;
  }
}
