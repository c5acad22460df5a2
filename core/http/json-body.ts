import coBody from 'co-body';
import type { Context, Next } from 'koa';
import { HttpError } from './http-error.js';

declare module 'koa' {
  interface Request {
    /** The parsed JSON body (see {@link jsonBody}); undefined when the request had none. */
    body?: unknown;
  }
}

const PARSED_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const JSON_TYPES = ['application/json', 'application/json-patch+json', 'application/vnd.api+json', 'application/csp-report', 'application/scim+json'];

/**
 * Reads the JSON body of a POST, PUT or PATCH with a JSON content type into `ctx.request.body`:
 * strict JSON (an object or array), at most `limitBytes` (413 above), 400 when it is not JSON.
 * co-body alone, as koa-body used it: koa-body also loads multipart and schema libraries
 * (formidable, zod) the gateway never uses, ~10 MiB of an idle gateway.
 */
export function jsonBody(limitBytes: number) {
  return async function readJsonBody(ctx: Context, next: Next): Promise<void> {
    if (PARSED_METHODS.has(ctx.method) && ctx.is(JSON_TYPES)) {
      try {
        ctx.request.body = await coBody.json(ctx, { limit: limitBytes, strict: true });
      } catch (err) {
        if ((err as { status?: number }).status === 413) throw new HttpError(413, 'GW_ERR_BODY_TOO_LARGE', `the request body exceeds ${limitBytes} bytes`);
        throw new HttpError(400, 'GW_ERR_MALFORMED_JSON', 'the request body is not valid JSON');
      }
    }
    return next();
  };
}
