import type { RouteSpec } from '../plugin-api.js';
import type { JsonSchema } from '../validation/json-schema.js';
import { PROBLEM_SCHEMA } from '../http/problem-schema.js';

export interface DocumentedRoute {
  plugin: string;
  method: string;
  /** Full koa-router path (`/api/devices/:id`). */
  path: string;
  spec: RouteSpec;
}

export interface OpenApiInput {
  title: string;
  version: string;
  description: string;
  routes: DocumentedRoute[];
  components: Record<string, JsonSchema>;
  tags: Array<{ name: string; description: string }>;
}

const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };

/** Converts `/devices/:id` to `/devices/{id}`. */
export function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function problem(description: string) {
  return { description, content: { 'application/problem+json': { schema: PROBLEM_REF } } };
}

function operation(route: DocumentedRoute) {
  const { spec } = route;
  const parameters: unknown[] = [];
  for (const match of route.path.matchAll(/:([A-Za-z0-9_]+)/g)) {
    const name = match[1]!;
    const declared = spec.params?.[name];
    parameters.push({ name, in: 'path', required: true, description: declared?.description ?? name, schema: declared?.schema ?? { type: 'string' } });
  }
  const queryProps = (spec.query?.properties ?? {}) as Record<string, JsonSchema>;
  const queryRequired = (spec.query?.required ?? []) as string[];
  for (const [name, schema] of Object.entries(queryProps)) {
    // A parameter with a default is never asked of the client: the kernel applies the default first.
    parameters.push({ name, in: 'query', required: queryRequired.includes(name) && schema.default === undefined, description: schema.description, schema });
  }
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    const type = response.contentType ?? (Number(status) >= 400 ? 'application/problem+json' : 'application/json');
    responses[status] = {
      description: response.description,
      ...(response.headers ? { headers: response.headers } : {}),
      ...(response.schema || Number(status) >= 400 ? { content: { [type]: { schema: response.schema ?? PROBLEM_REF } } } : {}),
    };
  }
  if (spec.body || spec.query) responses['400'] ??= problem('Invalid request: the problem lists each field and the reason');
  if (spec.permission !== 'public') {
    responses['401'] ??= problem('Missing, unknown or expired bearer token');
    if (spec.permission !== 'authenticated') responses['403'] ??= problem(`The user lacks the permission \`${spec.permission}\``);
  }
  return {
    operationId: `${route.plugin}.${route.method}.${route.path}`.replace(/[^A-Za-z0-9.]+/g, '_'),
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: spec.tags ?? [route.plugin],
    ...(spec.permission === 'public' ? { security: [] } : { 'x-permission': spec.permission }),
    ...(parameters.length ? { parameters } : {}),
    ...(spec.body ? { requestBody: { required: true, content: { 'application/json': { schema: spec.body } } } } : {}),
    responses,
  };
}

/** Assembles the OpenAPI 3.1 document from every route and schema the enabled plugins declared. */
export function buildOpenApiDocument(input: OpenApiInput): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of input.routes) {
    const path = toOpenApiPath(route.path);
    (paths[path] ??= {})[route.method] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: { title: input.title, version: input.version, description: input.description },
    servers: [{ url: '/' }],
    tags: input.tags,
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Token from POST /api/auth/login' } },
      schemas: { Problem: PROBLEM_SCHEMA, ...input.components },
    },
  };
}
