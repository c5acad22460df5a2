import { HttpError } from '../../core/plugin-api.js';

/** Error codes of IDE-R sessions (the images' own come from the images plugin). */
export const IderErrors = {
  noMedium: () => new HttpError(400, 'GW_ERR_IDER_NO_MEDIUM', 'an IDE-R session needs `cd`, `floppy` or both (image ids from GET /api/images)'),
  imagesOff: () => new HttpError(422, 'GW_ERR_IMAGES_DISABLED', 'IDE redirection serves uploaded images: enable the images plugin (plugins.images.enable)'),
  imageNotFound: (id: string) => new HttpError(404, 'GW_ERR_IMAGE_NOT_FOUND', `no image '${id}'`),
  notServing: (deviceId: string, kind: string) =>
    new HttpError(409, 'GW_ERR_IDER_NOT_OPEN', `device '${deviceId}' has no open IDE-R session serving a ${kind} image; open one first (POST /api/redirection/{deviceId}/sessions {mode: "ider", ${kind}: imageId})`),
  userSessions: (max: number) =>
    new HttpError(429, 'GW_ERR_REDIRECTION_USER_LIMIT', `you have ${max} IDE-R sessions open or opening, the most one user may (ider.maxSessionsPerUser); end one first`, { headers: { 'retry-after': '5' } }),
};
