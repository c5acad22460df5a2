/**
 * audit: the append-only trail of operator actions. Provides the `audit` service every plugin
 * records through (see api.ts), records the kernel's sign-ins and user changes, serves
 * `GET /api/audit` (`audit:read`), applies retention, and optionally mirrors to a JSON-lines file.
 * See README.md.
 */
import { AUDIT_COLLECTIONS } from './collections.js';
import { isAbsolute, join } from 'node:path';
import { definePlugin } from '../../core/plugin-api.js';
import './api.js';
import { openAuditLog } from './audit-log.js';
import { registerAuditRoutes } from './audit-routes.js';
import { createAuditTrail } from './audit-trail.js';
import { AUDIT_CONFIG_SCHEMA } from './config.js';
import { openJsonLinesSink } from './jsonl-sink.js';
import { recordKernelEvents } from './kernel-events.js';

const DAY_MS = 86_400_000;

export default definePlugin({
  name: 'audit',
  collections: AUDIT_COLLECTIONS,
  version: '1.0.0',
  kernel: '1',
  prefix: '/api/audit',
  permissions: [{ name: 'audit:read', description: 'Read the audit trail of operator actions' }],
  routes: [{ path: '/audit', name: 'audit', meta: { title: 'Audit trail', icon: 'history', permission: 'audit:read', order: 90 } }],
  configSchema: AUDIT_CONFIG_SCHEMA,
  async register(ctx) {
    const { retention, jsonLinesFile } = ctx.config;
    const cluster = ctx.cluster;
    const log = await openAuditLog(ctx.store.namespace('records'), cluster.enabled ? (atLeast) => cluster.next('audit-records', atLeast) : undefined);
    const sink = jsonLinesFile ? await openJsonLinesSink(isAbsolute(jsonLinesFile) ? jsonLinesFile : join(ctx.site.dataDir, jsonLinesFile)) : null;

    let pruning: Promise<void> | null = null;
    const prune = () =>
      (pruning ??= log
        .prune(retention.maxRecords, retention.maxAgeDays > 0 ? new Date(Date.now() - retention.maxAgeDays * DAY_MS).toISOString() : null)
        .then((removed) => void (removed > 0 && ctx.logger.info('audit records pruned', { removed })))
        .catch((err: Error) => ctx.logger.error('audit pruning failed', { error: err.message }))
        .finally(() => (pruning = null)));
    // Pruning by count waits for some slack, so that a full trail does not prune on every record.
    const slack = Math.max(100, Math.floor(retention.maxRecords / 100));
    const trail = createAuditTrail(log, sink, ctx.logger, () => void (log.count() > retention.maxRecords + slack && prune()));
    ctx.provide('audit', trail);
    const unsubscribe = recordKernelEvents(ctx.events, trail);
    registerAuditRoutes(ctx, log);

    await prune();
    const timer = setInterval(prune, retention.pruneIntervalSeconds * 1000);
    timer.unref();
    ctx.onClose(async () => {
      clearInterval(timer);
      for (const off of unsubscribe) off();
      await pruning;
      await sink?.close();
    });
  },
});
