/** `GET /api/activation/records`, `GET /api/activation/records/{id}`, `GET /api/activation/approvals`, `POST /api/activation/approvals/{uuid}`. */
import type { PluginContext } from '../../../core/plugin-api.js';
import { ActivationErrors } from '../errors.js';
import type { Approvals } from '../store/approvals.js';
import type { RecordLog } from '../store/record-log.js';
import { APPROVAL_SCHEMA, PROGRESS_SCHEMA, RECORD_QUERY_SCHEMA, RECORD_SCHEMA } from '../schemas.js';

const RECORD = { $ref: '#/components/schemas/ActivationRecord' };
const APPROVAL = { $ref: '#/components/schemas/ActivationApproval' };
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export function registerRecordRoutes(ctx: PluginContext, records: RecordLog, approvals: Approvals, deviceOf: (uuid: string) => string | undefined): void {
  ctx.openapi.addSchema('ActivationRecord', RECORD_SCHEMA);
  ctx.openapi.addSchema('ActivationApproval', APPROVAL_SCHEMA);
  ctx.openapi.addSchema('ActivationProgressEvent', PROGRESS_SCHEMA);
  const tags = ['activation'];
  ctx.http.route({
    method: 'get',
    path: '/records',
    summary: 'Activation records, newest first',
    description: 'One per action an agent asked for (activate, deactivate, maintenance): its steps, the WS-Management requests relayed, and how it ended. Never a secret.',
    tags,
    permission: 'activation:read',
    query: RECORD_QUERY_SCHEMA,
    responses: { 200: { description: 'Records', schema: { type: 'array', items: RECORD }, headers: { 'X-Total-Count': { description: 'Records matching', schema: { type: 'integer' } } } } },
    async handler(req, reply) {
      const { offset, limit, uuid, outcome } = req.query;
      const page = await records.query({ ...(uuid ? { uuid: uuid.toLowerCase() } : {}), ...(outcome ? { outcome } : {}) }, offset, limit ?? 1000);
      reply.header('X-Total-Count', String(page.total));
      return page.records;
    },
  });
  ctx.http.route({
    method: 'get',
    path: '/records/:id',
    summary: 'One activation record',
    tags,
    permission: 'activation:read',
    params: { id: { description: 'Record id' } },
    responses: { 200: { description: 'The record', schema: RECORD }, 404: { description: 'Unknown record' } },
    async handler(req) {
      const record = await records.get(req.params.id);
      if (!record) throw ActivationErrors.recordNotFound(req.params.id);
      return record;
    },
  });
  ctx.http.route({
    method: 'get',
    path: '/approvals',
    summary: 'Activations waiting for approval, and approvals given',
    description: 'An activation whose UUID is already a managed device waits (record `waiting`) until an operator approves, for `approvalWaitSeconds`.',
    tags,
    permission: 'activation:read',
    responses: { 200: { description: 'Approvals', schema: { type: 'array', items: APPROVAL } } },
    handler: () => approvals.list(),
  });
  ctx.http.route({
    method: 'post',
    path: '/approvals/:uuid',
    summary: 'Approve activating a device that replaces a managed one',
    description:
      'The activation of this UUID that waits goes on; with none waiting, the next one within `approvalValidSeconds` goes on without waiting. It replaces the managed device\'s password, CIRA account and provisioning.',
    tags,
    permission: 'activation:manage',
    params: { uuid: { description: 'Device UUID' } },
    responses: { 200: { description: 'Approved', schema: APPROVAL }, 404: { description: 'No managed device and no activation waiting with this UUID' } },
    async handler(req) {
      const uuid = req.params.uuid.toLowerCase();
      if (!UUID.test(uuid)) throw ActivationErrors.noPendingApproval(req.params.uuid.slice(0, 36));
      const approval = await approvals.approve(uuid, req.user?.username ?? 'unknown', deviceOf(uuid));
      await ctx.useOptional('audit')?.record({ by: req, action: 'activation.approve', target: approval.deviceId, detail: { uuid, recordId: approval.recordId } });
      return approval;
    },
  });
}
