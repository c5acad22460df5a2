/**
 * Holds every answer a test receives through the harness to the route's documented response: the
 * gateway's own OpenAPI document (built from the routes' schemas, the TypeBox shapes the console's
 * types are derived from), read once per gateway. A JSON body must match the schema of its status,
 * with no property the schema does not name (objects are closed here, so that a field added to an
 * answer but not to its shape fails too); an error must be a problem; a success status the route
 * does not document is refused. So a shape and what the gateway sends cannot drift apart unseen.
 */
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { createAjv, describeErrors } from '../../core/validation/validator.js';

interface Operation {
  pattern: RegExp;
  method: string;
  path: string;
  responses: Responses;
}

const COMPONENT_PREFIX = '#/components/schemas/';
const AJV_PREFIX = 'https://amt-gateway.invalid/contract/';

/** The schema with every object that lists its properties closed to others (and `$ref`s pointed at ajv's copies). */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_PREFIX) ? AJV_PREFIX + value.slice(COMPONENT_PREFIX.length) : closed(value);
  }
  const composed = ['allOf', 'anyOf', 'oneOf'].some((k) => k in out);
  if (out.properties && out.additionalProperties === undefined && !composed) out.additionalProperties = false;
  return out;
}

type Responses = Record<string, { content?: Record<string, { schema?: unknown }> }>;
type Paths = Record<string, Record<string, { responses: Responses }>>;

const escape = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');

function operations(paths: Paths): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(paths)) {
    const pattern = new RegExp(`^${path.split('/').map((segment) => (/^\{[^}]+\}$/.test(segment) ? '[^/]+' : escape(segment))).join('/')}$`);
    for (const [method, operation] of Object.entries(methods)) out.push({ pattern, method: method.toUpperCase(), path, responses: operation.responses });
  }
  // A literal segment wins over a parameter (`/devices/summary` before `/devices/{id}`).
  const parameters = (op: Operation) => op.path.split('{').length;
  return out.sort((a, b) => parameters(a) - parameters(b));
}

export interface ResponseContract {
  /** Rejects with what does not match when `res` (a clone: its body is read) breaks the route's documented answer. */
  check(method: string, path: string, res: Response): Promise<void>;
  /** Rejects when `payload` is not what the component schema `name` of the OpenAPI document says (closed objects). */
  checkComponent(name: string, payload: unknown, where: string): Promise<void>;
}

export function responseContract(baseUrl: string): ResponseContract {
  let loaded: Promise<{ ajv: Ajv2020; operations: Operation[] }> | undefined;
  const validators = new Map<unknown, ValidateFunction>();
  const load = () =>
    (loaded ??= (async () => {
      const res = await fetch(`${baseUrl}/swagger/openapi.json`);
      if (res.status !== 200) throw new Error(`the OpenAPI document answered ${res.status}`);
      const document = (await res.json()) as { paths: Paths; components: { schemas: Record<string, unknown> } };
      const ajv = createAjv();
      for (const [name, schema] of Object.entries(document.components.schemas)) ajv.addSchema(closed(schema) as object, AJV_PREFIX + name);
      return { ajv, operations: operations(document.paths) };
    })());
  const validator = (ajv: Ajv2020, schema: unknown) => {
    let validate = validators.get(schema);
    if (!validate) validators.set(schema, (validate = ajv.compile(closed(schema) as object)));
    return validate;
  };
  return {
    async check(method, path, res) {
      const pathname = new URL(path, baseUrl).pathname;
      if (!pathname.startsWith('/api/')) return;
      const { ajv, operations: ops } = await load();
      const operation = ops.find((op) => op.method === (method === 'HEAD' ? 'GET' : method.toUpperCase()) && op.pattern.test(pathname));
      if (!operation || method === 'HEAD') return;
      const where = `${method} ${pathname} answered ${res.status}`;
      const documented = operation.responses[String(res.status)];
      if (!documented && res.status < 400 && res.status !== 304) throw new Error(`${where}, a status ${operation.path} does not document`);
      const [type = '', schema] = Object.entries(documented?.content ?? {}).map(([t, c]) => [t, c.schema] as const)[0] ?? [];
      const contentType = res.headers.get('content-type') ?? '';
      if (res.status >= 400 && (!schema || /problem\+json/i.test(type))) {
        if (!/application\/problem\+json/i.test(contentType)) throw new Error(`${where} with ${contentType || 'no content type'}, not a problem`);
        return holds(validator(ajv, schema ?? { $ref: `${COMPONENT_PREFIX}Problem` }), await res.json(), where);
      }
      if (!schema || !/\bjson\b/i.test(type)) return;
      if (!/\bjson\b/i.test(contentType)) throw new Error(`${where} with ${contentType || 'no content type'}; ${operation.path} documents ${type}`);
      const text = await res.text();
      return holds(validator(ajv, schema), text === '' ? undefined : (JSON.parse(text) as unknown), where);
    },
    async checkComponent(name, payload, where) {
      const { ajv } = await load();
      holds(validator(ajv, { $ref: `${COMPONENT_PREFIX}${name}` }), payload, where);
    },
  };
}

function holds(validate: ValidateFunction, body: unknown, where: string): void {
  if (validate(body)) return;
  const problems = describeErrors(validate.errors, 'body').map((e) => `${e.path} ${e.message}`);
  throw new Error(`${where}, which its documented schema refuses: ${problems.join('; ')}\n${JSON.stringify(body).slice(0, 800)}`);
}
