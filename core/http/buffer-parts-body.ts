import type { Context } from 'koa';

/**
 * Answers 200 with the concatenation of `parts` without copying them into one buffer: the parts go
 * to the socket as one corked write. A page of the device list is slices of shared, already encoded
 * blocks; joining them allocated and copied 45 KiB per request, a fifth of its CPU.
 * Headers set on `ctx` before are sent; HEAD gets them without the body.
 */
export function sendBufferParts(ctx: Context, parts: readonly Buffer[], contentType: string): void {
  let length = 0;
  for (const part of parts) length += part.length;
  ctx.status = 200;
  ctx.type = contentType;
  ctx.length = length;
  if (ctx.method === 'HEAD') {
    ctx.body = Buffer.concat(parts, length);
    return;
  }
  ctx.respond = false;
  const res = ctx.res;
  res.cork();
  for (const part of parts) res.write(part);
  res.end();
  res.uncork();
}
