/** Helpers of the audit tests: reading the trail through its route. */
import type { TestGateway } from '../../helpers/gateway-harness.js';
import type { AuditRecord } from '../../../plugins/audit/api.js';

export type { AuditRecord };

/** `GET /api/audit` with a query; the records and `X-Total-Count`. */
export async function readAudit(gw: TestGateway, token: string, query: Record<string, string | number> = {}): Promise<{ status: number; total: number; records: AuditRecord[]; raw: string }> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const res = await gw.request('GET', `/api/audit${qs ? `?${qs}` : ''}`, { token });
  const raw = await res.text();
  return { status: res.status, total: Number(res.headers.get('x-total-count')), records: res.status === 200 ? (JSON.parse(raw) as AuditRecord[]) : [], raw };
}

/** Every record, newest first, through paging. */
export async function allRecords(gw: TestGateway, token: string): Promise<AuditRecord[]> {
  const all: AuditRecord[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await readAudit(gw, token, { offset, limit: 1000 });
    all.push(...page.records);
    if (all.length >= page.total || page.records.length === 0) return all;
  }
}
