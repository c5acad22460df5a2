import type { Context, Next } from 'koa';
import { HttpError } from './http-error.js';
import { watchUtf8Body } from './utf8-body-guard.js';

type BodyParser = (ctx: Context, next: Next) => Promise<unknown>;

/** The methods koa-body parses (its `parsedMethods` default); it passes every other request on untouched. */
const PARSED_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** What koa-body would do nothing with: a method it does not parse, or no body at all (type-is's `hasBody`). */
function nothingToParse(ctx: Context): boolean {
  const headers = ctx.req.headers;
  return !PARSED_METHODS.has(ctx.method) || (headers['transfer-encoding'] === undefined && headers['content-length'] === undefined);
}

/**
 * Reads the JSON body of a request into `ctx.request.body` with koa-body: strict JSON only (no
 * multipart, form or text), at most `limitBytes` (413 above), 400 when it is not JSON or its bytes
 * are not valid UTF-8 (the parser decodes leniently, so the guard watches the raw chunks).
 */
export function jsonBody(limitBytes: number) {
  // koa-body pulls in formidable and zod (~10 MiB, ~50 ms to load): imported by the first request
  // with a body to parse, not at start nor by the first GET (a start is timed to its first health answer).
  let parser: Promise<BodyParser> | undefined;
  const load = () =>
    (parser ??= import('koa-body').then(({ koaBody }) =>
      koaBody({
        json: true,
        jsonStrict: true,
        multipart: false,
        urlencoded: false,
        text: false,
        jsonLimit: limitBytes,
        onError(err) {
          if ((err as { status?: number }).status === 413) throw new HttpError(413, 'GW_ERR_BODY_TOO_LARGE', `the request body exceeds ${limitBytes} bytes`);
          throw new HttpError(400, 'GW_ERR_MALFORMED_JSON', 'the request body is not valid JSON');
        },
      }) as unknown as BodyParser,
    ));
  return async function readJsonBody(ctx: Context, next: Next): Promise<void> {
    // A binary body (an image upload) is the route's to stream: neither parsed nor watched here.
    if (ctx.request.type === 'application/octet-stream') return next();
    if (nothingToParse(ctx)) return next();
    const parse = await load();
    const validUtf8 = watchUtf8Body(ctx.req);
    let parsed = false;
    try {
      await parse(ctx, async () => {
        parsed = true;
      });
    } catch (err) {
      if (!validUtf8()) throw invalidUtf8();
      throw err;
    }
    if (!validUtf8()) throw invalidUtf8();
    if (parsed) return next();
  };
}

const invalidUtf8 = () => new HttpError(400, 'GW_ERR_INVALID_UTF8', 'the request body is not valid UTF-8');
