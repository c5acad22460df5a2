/** Calls to the gateway's /api with the session's token; problems become ApiError with their field errors. */
import type { Problem } from './shapes.js';

/**
 * An error answer: the gateway's problem document, or as much of one as could be read (a proxy's
 * answer may be anything).
 */
export type ReadProblem = Partial<Problem> & { status: number };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: ReadProblem,
    readonly retryAfter: number | null,
  ) {
    super(problem.detail ?? problem.title ?? `request failed (${status})`);
  }

  /** Field errors by field name (`body.range` -> `range`). */
  fields(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const e of this.problem.errors ?? []) {
      const field = e.path.replace(/^(body|query|params)\./, '');
      out[field] = out[field] ? `${out[field]}; ${e.message}` : e.message;
    }
    return out;
  }
}

/** The field errors of a failed call by field name; none when `err` is not an ApiError. */
export function errorFields(err: unknown): Record<string, string> {
  return err instanceof ApiError ? err.fields() : {};
}

let token: string | null = null;
let onUnauthorized: () => void = () => {};

export function setToken(value: string | null): void {
  token = value;
}

/** The Authorization header of the signed-in session, for requests `api` cannot make (an upload with progress). */
export const authorization = (): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});

/** Called when a signed-in call gets 401: the token expired or was revoked. */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

const REQUEST_TIMEOUT_MS = 60_000;

export interface ApiResponse<T> {
  body: T;
  total: number | null;
}

export async function apiFull<T>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`/api${path}`, {
    method,
    headers,
    body: body === undefined ? null : JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const problem = (parsed && typeof parsed === 'object' ? parsed : { status: res.status }) as ReadProblem;
    const retry = Number(res.headers.get('retry-after'));
    if (res.status === 401 && token && path !== '/auth/login') onUnauthorized();
    throw new ApiError(res.status, problem, Number.isFinite(retry) && retry > 0 ? retry : null);
  }
  const total = res.headers.get('x-total-count');
  return { body: parsed as T, total: total === null ? null : Number(total) };
}

export const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => (await apiFull<T>(method, path, body)).body;

export function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') search.set(k, String(v));
  const s = search.toString();
  return s ? `?${s}` : '';
}

export const errorText = (err: unknown) => (err instanceof ApiError ? err.message : err instanceof Error ? err.message : String(err));
