/** `GET /api/audit`: the trail, newest first, filtered and paged. */
import { Type } from '@sinclair/typebox';
import type { PluginContext } from '../../core/plugin-api.js';
import { StringEnum } from '../../core/validation/schema-types.js';
import type { AuditFilter, AuditLog } from './audit-log.js';
import type { AuditConfig } from './config.js';

const TEXT = { minLength: 1, maxLength: 256 };

export const AUDIT_RECORD_SCHEMA = {
  type: 'object',
  required: ['id', 'class', 'at', 'user', 'address', 'action', 'target', 'outcome', 'detail'],
  properties: {
    id: { type: 'string', description: 'Increasing with the order records of its class were written (`f`-prefixed for `sign-in-failures`)' },
    class: {
      type: 'string',
      enum: ['operator', 'sign-in-failures'],
      description: '`operator`: one record per action; `sign-in-failures`: failed and refused sign-ins aggregated per client address, door and window (`detail`: `door`, `attempts`, `failures`, `refused`, `names`, `lastAt`), kept under bounds of their own',
    },
    at: { type: 'string', format: 'date-time' },
    user: { type: ['string', 'null'], description: 'The signed-in user who acted (for a sign-in: the name tried)' },
    address: { type: ['string', 'null'], description: 'The client address the request came from' },
    action: { type: 'string', description: 'e.g. `auth.sign-in`, `power.change`, `scan.start`' },
    target: { type: ['string', 'null'], description: 'What it was done to: a device id, user name, scan id, ...' },
    outcome: { type: 'string', enum: ['success', 'failure'] },
    detail: { type: 'object', description: 'Facts of the action (never a secret); on failure `error`, the problem code' },
  },
};

export const AUDIT_QUERY_SCHEMA = Type.Object(
  {
    user: Type.Optional(Type.String(TEXT)),
    action: Type.Optional(Type.String({ ...TEXT, description: 'Exact, or a prefix ending in `*` (`power.*`)' })),
    target: Type.Optional(Type.String(TEXT)),
    outcome: Type.Optional(StringEnum(['success', 'failure'], { type: 'string' })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Records at or after this time' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Records at or before this time' })),
    class: Type.Optional(StringEnum(['operator', 'sign-in-failures'], { type: 'string', description: 'Only records of this retention class' })),
    offset: Type.Integer({ minimum: 0, default: 0 }),
    limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  },
  { additionalProperties: false },
);

/** `beforeQuery` writes what is held back (the counts of open sign-in failure windows), so that a query reads it. */
export function registerAuditRoutes(ctx: PluginContext<AuditConfig>, log: AuditLog, beforeQuery: () => Promise<void>): void {
  ctx.openapi.addSchema('AuditRecord', AUDIT_RECORD_SCHEMA);
  ctx.openapi.addTag('audit', 'The audit trail of operator actions');
  ctx.http.route({
    method: 'get',
    path: '/',
    summary: 'Audit records, newest first',
    description:
      'Every operator action that changed something or touched a device, with who, from where, what, on what and how it ended; and failed or refused sign-ins, aggregated per client address, door and window. Both classes newest first by time, or one with `class`.',
    tags: ['audit'],
    permission: 'audit:read',
    query: AUDIT_QUERY_SCHEMA,
    responses: {
      200: {
        description: 'The records',
        schema: { type: 'array', items: { $ref: '#/components/schemas/AuditRecord' } },
        headers: { 'X-Total-Count': { description: 'Records matching the filters', schema: { type: 'integer' } } },
      },
    },
    async handler(req, reply) {
      const { offset, limit, from, to, ...rest } = req.query;
      // Stored times are toISOString() output, so the bounds are put in the same form to compare as text.
      const filter: AuditFilter = { ...rest, ...(from ? { from: new Date(from).toISOString() } : {}), ...(to ? { to: new Date(to).toISOString() } : {}) };
      await beforeQuery();
      const { total, records } = await log.query(filter, offset, limit);
      reply.header('X-Total-Count', String(total));
      return records;
    },
  });
}
