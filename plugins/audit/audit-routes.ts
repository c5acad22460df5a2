/** `GET /api/audit`: the trail, newest first, filtered and paged. */
import type { PluginContext } from '../../core/plugin-api.js';
import { AUDIT_QUERY_SCHEMA, AUDIT_RECORD_SCHEMA } from './audit-schemas.js';
import type { AuditFilter, AuditLog } from './audit-log.js';
import type { AuditConfig } from './config.js';

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
