/**
 * audit: the append-only trail of operator actions. Provides the `audit` service every plugin
 * records through (see api.ts), records the kernel's sign-ins and user changes, serves
 * `GET /api/audit` (`audit:read`), applies retention, and optionally mirrors to a JSON-lines file.
 * See README.md.
 */
import { isAbsolute, join } from 'node:path';
import { definePlugin } from '../../core/plugin-api.js';
import type { AuditClass } from './api.js';
import { openAuditLog } from './audit-log.js';
import { registerAuditRoutes } from './audit-routes.js';
import { createAuditTrail } from './audit-trail.js';
import { AUDIT_CONFIG_SCHEMA } from './config.js';
import { openJsonLinesSink } from './jsonl-sink.js';
import { recordKernelEvents } from './kernel-events.js';
import { createSignInFailures } from './sign-in-failures.js';

const DAY_MS = 86_400_000;

export default definePlugin({
  name: 'audit',
  version: '1.0.0',
  kernel: '1',
  prefix: '/api/audit',
  permissions: [{ name: 'audit:read', description: 'Read the audit trail of operator actions' }],
  routes: [{ path: '/audit', name: 'audit', meta: { title: 'Audit trail', icon: 'history', permission: 'audit:read', order: 90 } }],
  configSchema: AUDIT_CONFIG_SCHEMA,
  async register(ctx) {
    const { retention, signInFailures, jsonLinesFile } = ctx.config;
    const log = await openAuditLog(ctx.store.namespace('records'));
    const sink = jsonLinesFile ? await openJsonLinesSink(isAbsolute(jsonLinesFile) ? jsonLinesFile : join(ctx.site.dataDir, jsonLinesFile)) : null;

    const bounds: Record<AuditClass, { maxRecords: number; maxAgeDays: number }> = { operator: retention, 'sign-in-failures': signInFailures };
    let pruning: Promise<void> | null = null;
    const prune = () =>
      (pruning ??= (async () => {
        for (const [recordClass, bound] of Object.entries(bounds) as Array<[AuditClass, (typeof bounds)[AuditClass]]>) {
          const removed = await log.prune(recordClass, bound.maxRecords, bound.maxAgeDays > 0 ? new Date(Date.now() - bound.maxAgeDays * DAY_MS).toISOString() : null);
          if (removed > 0) ctx.logger.info('audit records pruned', { class: recordClass, removed });
        }
      })()
        .catch((err: Error) => ctx.logger.error('audit pruning failed', { error: err.message }))
        .finally(() => (pruning = null)));
    // Pruning by count waits for some slack, so that a full class does not prune on every record.
    const overBound = (recordClass: AuditClass) => () => {
      const { maxRecords } = bounds[recordClass];
      if (log.count(recordClass) > maxRecords + Math.max(100, Math.floor(maxRecords / 100))) void prune();
    };
    const trail = createAuditTrail(log, sink, ctx.logger, overBound('operator'));
    const failures = createSignInFailures(log, sink, ctx.logger, overBound('sign-in-failures'), { windowSeconds: signInFailures.windowSeconds });
    ctx.provide('audit', trail);
    const unsubscribe = recordKernelEvents(ctx.events, trail, failures);
    registerAuditRoutes(ctx, log, () => failures.flush());

    await prune();
    const timer = setInterval(prune, retention.pruneIntervalSeconds * 1000);
    timer.unref();
    ctx.onClose(async () => {
      clearInterval(timer);
      for (const off of unsubscribe) off();
      await failures.close();
      await pruning;
      await sink?.close();
    });
  },
});
