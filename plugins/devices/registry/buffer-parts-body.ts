import type { RouteReply } from '../../../core/plugin-api.js';

/**
 * Answers 200 with the concatenation of `parts` without copying them into one buffer: the parts go
 * to the socket as one corked write. A page of the device list is slices of shared, already encoded
 * blocks; joining them allocated and copied 45 KiB per request, a fifth of its CPU.
 * Headers set on `reply` before are sent; HEAD gets them without the body.
 * @returns what the handler returns: the joined body for HEAD (the kernel sends its length only), else nothing.
 */
export function sendBufferParts(method: string, reply: RouteReply, parts: readonly Buffer[], contentType: string): Buffer | undefined {
  let length = 0;
  for (const part of parts) length += part.length;
  reply.status(200).type(contentType);
  if (method === 'HEAD') return Buffer.concat(parts, length);
  reply.header('Content-Length', String(length));
  const res = reply.hijack();
  res.cork();
  for (const part of parts) res.write(part);
  res.end();
  res.uncork();
  return undefined;
}
