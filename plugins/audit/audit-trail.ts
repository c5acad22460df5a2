/** The `audit` service: records operator actions into the log (and the JSON-lines file), secrets redacted. */
import type { Logger } from '../../core/plugin-api.js';
import type { AuditActor, AuditDetail, AuditEntry, AuditRecord, AuditTrail } from './api.js';
import type { AuditLog } from './audit-log.js';
import type { JsonLinesSink } from './jsonl-sink.js';
import { boundedText, redactDetail } from './redact.js';

const ACTION = /^[a-z0-9][a-z0-9.:_-]{0,63}$/;

function actorOf(by: AuditActor): { user: string | null; address: string | null } {
  if ('ip' in by) return { user: by.user?.username ?? null, address: by.ip };
  return { user: by.user, address: by.address };
}

/** What a failure says about itself, by shape: its code and status, never its message (it may quote input). */
function failureDetail(err: unknown): AuditDetail {
  const shape = (typeof err === 'object' && err !== null ? err : {}) as { code?: unknown; status?: unknown };
  return { error: typeof shape.code === 'string' ? shape.code : 'error', ...(typeof shape.status === 'number' ? { status: shape.status } : {}) };
}

export function createAuditTrail(log: AuditLog, sink: JsonLinesSink | null, logger: Logger, afterAppend: () => void): AuditTrail {
  const record = async (entry: AuditEntry): Promise<void> => {
    if (!ACTION.test(entry.action)) {
      logger.error('audit record refused: action must be lower-case, dotted, at most 64 characters', { action: boundedText(entry.action, 64) });
      return;
    }
    const { user, address } = actorOf(entry.by);
    const fields: Omit<AuditRecord, 'id'> = {
      class: 'operator',
      at: new Date().toISOString(),
      user: boundedText(user, 128),
      address: boundedText(address, 64),
      action: entry.action,
      target: boundedText(entry.target, 256),
      outcome: entry.outcome ?? 'success',
      detail: redactDetail(entry.detail),
    };
    try {
      // Handed to the sink before it resolves, so the file keeps id order (puts may finish out of order).
      const stored = log.append(fields);
      await (sink ? sink.write(stored) : stored);
      afterAppend();
    } catch (err) {
      logger.error('audit record could not be written', { action: entry.action, error: (err as Error).message });
    }
  };
  return {
    record,
    async track(entry, work, detailOf) {
      let result;
      try {
        result = await work();
      } catch (err) {
        await record({ ...entry, outcome: 'failure', detail: { ...entry.detail, ...failureDetail(err) } });
        throw err;
      }
      await record({ ...entry, outcome: 'success', detail: { ...entry.detail, ...(detailOf ? detailOf(result) : {}) } });
      return result;
    },
  };
}
