/** The audit trail (audit:read): filters by user, action, target, outcome, time and class; pages of 50, newest first. */
import { useEffect, useState } from 'preact/hooks';
import { apiFull, errorText, query } from '../api.js';
import { Field, formatTime, Message } from '../components/field.js';

import type { AuditRecord } from '../shapes.js';

interface Filters {
  user: string;
  action: string;
  target: string;
  outcome: string;
  from: string;
  to: string;
  class: string;
}

const PAGE = 50;
const EMPTY: Filters = { user: '', action: '', target: '', outcome: '', from: '', to: '', class: '' };
/** A `datetime-local` value (local time) as the ISO time the API takes. */
const isoOf = (local: string) => (local ? new Date(local).toISOString() : undefined);
const detailText = (detail: Record<string, unknown>) =>
  Object.entries(detail)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ');

export function AuditPage() {
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const [offset, setOffset] = useState(0);
  const [records, setRecords] = useState<AuditRecord[] | null>(null);
  const [total, setTotal] = useState(0);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const { from, to, ...rest } = filters;
    apiFull<AuditRecord[]>('GET', `/audit${query({ ...rest, from: isoOf(from), to: isoOf(to), offset, limit: PAGE })}`).then(
      (res) => {
        setError(null);
        setRecords(res.body);
        setTotal(res.total ?? res.body.length);
      },
      (err) => setError(errorText(err)),
    );
  }, [filters, offset]);

  const set = (key: keyof Filters) => (e: Event) => setDraft({ ...draft, [key]: (e.currentTarget as HTMLInputElement).value });
  const text = (key: keyof Filters, label: string, hint?: string) => (
    <Field label={label} {...(hint ? { hint } : {})}>
      {(props) => <input {...props} value={draft[key]} onInput={set(key)} />}
    </Field>
  );

  return (
    <section>
      <h1>Audit trail</h1>
      <form
        class="filters"
        aria-label="Audit filters"
        onSubmit={(e) => {
          e.preventDefault();
          setOffset(0);
          setFilters(draft);
        }}
      >
        {text('user', 'User')}
        {text('action', 'Action', 'e.g. power.change, or power.* for every power action')}
        {text('target', 'Target', 'a device id, user name, scan id, ...')}
        <Field label="Outcome">
          {(props) => (
            <select {...props} value={draft.outcome} onChange={set('outcome')}>
              <option value="">any</option>
              <option value="success">success</option>
              <option value="failure">failure</option>
            </select>
          )}
        </Field>
        <Field label="Kind" hint="failed and refused sign-ins are kept apart, one record per address and minute">
          {(props) => (
            <select {...props} value={draft.class} onChange={set('class')}>
              <option value="">any</option>
              <option value="operator">operator actions</option>
              <option value="sign-in-failures">failed sign-ins</option>
            </select>
          )}
        </Field>
        <Field label="From">{(props) => <input {...props} type="datetime-local" step={1} value={draft.from} onInput={set('from')} />}</Field>
        <Field label="To">{(props) => <input {...props} type="datetime-local" step={1} value={draft.to} onInput={set('to')} />}</Field>
        <button type="submit">Apply filters</button>
      </form>
      {error && <Message kind="error">{error}</Message>}
      {records && (
        <>
          <p role="status">
            {total === 0 ? 'No records match.' : `Records ${offset + 1}–${offset + records.length} of ${total.toLocaleString()}, newest first.`}
          </p>
          <table>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">User</th>
                <th scope="col">Address</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Outcome</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {records.map((r) => (
                <tr key={r.id}>
                  <td>{formatTime(r.at)}</td>
                  <td>{r.user ?? '—'}</td>
                  <td>{r.address ?? '—'}</td>
                  <td>{r.action}</td>
                  <td>{r.target ?? '—'}</td>
                  <td>{r.outcome}</td>
                  <td>{detailText(r.detail)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <nav aria-label="Audit pages">
            <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
              Newer
            </button>
            <button type="button" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
              Older
            </button>
          </nav>
        </>
      )}
    </section>
  );
}
