import type { PluginContext } from '../../../core/plugin-api.js';
import { RestApiErrors } from '../errors.js';
import type { ScanService } from './scan-service.js';
import { DEVICE_DISCOVERED_EVENT_SCHEMA, SCAN_PROGRESS_EVENT_SCHEMA, SCAN_SCHEMA, SCANS_QUERY, START_SCAN_SCHEMA } from './scan-schemas.js';

const REF = { $ref: '#/components/schemas/Scan' };
const params = { id: { description: 'Scan id' } };

/** `POST /api/scan/start`, `POST /api/scan/cancel/{id}` (fixed), `GET /api/scan/{id}`, `GET /api/scans`. */
export function registerScanRoutes(ctx: PluginContext, scans: ScanService): void {
  ctx.openapi.addSchema('Scan', SCAN_SCHEMA);
  // Not answered by a route: the payloads of the scan events /scanHub sends (documented with the API's shapes).
  ctx.openapi.addSchema('ScanProgressEvent', SCAN_PROGRESS_EVENT_SCHEMA);
  ctx.openapi.addSchema('DeviceDiscoveredEvent', DEVICE_DISCOVERED_EVENT_SCHEMA);
  ctx.openapi.addTag('scans', 'Network scans for AMT devices; live progress on /scanHub');
  const tags = ['scans'];
  const audit = ctx.useOptional('audit');
  ctx.http.route({
    method: 'post',
    path: '/scan/start',
    summary: 'Start a network scan',
    description: 'Probes TCP 16992, 16993 and the RMCP ping on UDP 623 of every address, then signs in to each AMT device found.',
    tags,
    permission: 'scan:run',
    body: START_SCAN_SCHEMA,
    responses: {
      202: { description: 'Started', schema: REF },
      422: { description: 'Range too wide, outside the allowed networks, or an unknown credential' },
      429: { description: 'Too many scans running (`GW_ERR_TOO_MANY_SCANS`), or too many of this user (`GW_ERR_TOO_MANY_USER_SCANS`, `scan.maxConcurrentScansPerUser`)' },
    },
    async handler(req, reply) {
      const entry = { by: req, action: 'scan.start', target: req.body.range, detail: { ...req.body } };
      // With the trail off (no `audit` service) the work runs unrecorded.
      const start = () => scans.start(req.body, req.user!.id);
      const scan = await (audit?.track(entry, start, (s) => ({ scanId: s.id, total: s.total })) ?? start());
      reply.status(202).header('Location', `/api/scan/${scan.id}`);
      return scan;
    },
  });
  ctx.http.route({
    method: 'post',
    path: '/scan/cancel/:id',
    summary: 'Cancel a running scan; devices found so far are kept',
    tags,
    permission: 'scan:run',
    params,
    responses: { 200: { description: 'Cancelled', schema: REF }, 404: { description: 'Unknown scan' }, 409: { description: 'The scan already finished' } },
    handler: (req) => audit?.track({ by: req, action: 'scan.cancel', target: req.params.id }, () => scans.cancel(req.params.id)) ?? scans.cancel(req.params.id),
  });
  ctx.http.route({
    method: 'get',
    path: '/scan/:id',
    summary: 'Get a scan',
    tags,
    permission: 'devices:read',
    params,
    responses: { 200: { description: 'The scan', schema: REF }, 404: { description: 'Unknown scan' } },
    handler(req) {
      const scan = scans.get(req.params.id);
      if (!scan) throw RestApiErrors.scanNotFound(req.params.id);
      return scan;
    },
  });
  ctx.http.route({
    method: 'get',
    path: '/scans',
    summary: 'Recent scans, newest first',
    tags,
    permission: 'devices:read',
    query: SCANS_QUERY,
    responses: { 200: { description: 'Scans', schema: { type: 'array', items: REF }, headers: { 'X-Total-Count': { description: 'Scans kept', schema: { type: 'integer' } } } } },
    handler(req, reply) {
      const all = scans.list();
      const { offset, limit } = req.query;
      reply.header('X-Total-Count', String(all.length));
      return all.slice(offset, offset + limit);
    },
  });
}
