import { HttpError } from '../../core/plugin-api.js';

/** Error codes of the images plugin, each with its HTTP status. */
export const ImageErrors = {
  notFound: (id: string) => new HttpError(404, 'GW_ERR_IMAGE_NOT_FOUND', `no image '${id}'`),
  duplicateName: (name: string) => new HttpError(409, 'GW_ERR_IMAGE_EXISTS', `an image named '${name}' exists already (or is being uploaded)`),
  inUse: (id: string, sessions: number) => new HttpError(409, 'GW_ERR_IMAGE_IN_USE', `image '${id}' is served by ${sessions} IDE-R session(s); end them first`),
  tooLarge: (maxBytes: number) => new HttpError(413, 'GW_ERR_IMAGE_TOO_LARGE', `the image exceeds ${maxBytes} bytes (plugins.images.options.maxBytes)`),
  empty: () => new HttpError(400, 'GW_ERR_IMAGE_EMPTY', 'the request body holds no image bytes'),
  mediaType: () => new HttpError(415, 'GW_ERR_MEDIA_TYPE', 'send the image bytes as the body with Content-Type: application/octet-stream'),
  kind: (id: string, kind: string, wanted: string) => new HttpError(422, 'GW_ERR_IMAGE_KIND', `image '${id}' is a ${kind} image, not a ${wanted} image`),
  tooMany: (max: number) => new HttpError(409, 'GW_ERR_IMAGES_FULL', `${max} images are stored already (plugins.images.options.maxImages); delete one first`),
  uploadsBusy: () => new HttpError(503, 'GW_ERR_UPLOADS_BUSY', 'too many uploads are running; try again shortly', { expose: true, headers: { 'retry-after': '10' } }),
  aborted: () => new HttpError(400, 'GW_ERR_UPLOAD_ABORTED', 'the upload ended before its body was complete (or stalled); nothing was stored'),
  noSpace: () => new HttpError(507, 'GW_ERR_NO_SPACE', 'the image directory is full; nothing was stored', { expose: true }),
  unavailable: (id: string) =>
    new HttpError(503, 'GW_ERR_IMAGE_UNAVAILABLE', `the file of image '${id}' is missing or changed on this gateway; restore it into the image directory (see README, Images)`, { expose: true }),
};
