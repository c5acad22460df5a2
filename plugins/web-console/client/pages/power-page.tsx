/** Bulk power actions over a selection of devices, with one result per device. */
import { useEffect, useState } from 'preact/hooks';
import { api, apiFull, errorText, query } from '../api.js';
import { Message } from '../components/field.js';
import type { Device } from '../hub.js';
import { can, type Session } from '../session.js';
import { ACTION_LABELS, CONFIRMED_ACTIONS } from './device-power.js';

import type { BulkPowerResult as BulkResult } from '../shapes.js';

const PAGE = 50;
const ACTIONS = ['on', 'off', 'reset', 'cycle', 'soft-off', 'soft-reset', 'sleep', 'hibernate'];

export function PowerPage({ session }: { session: Session }) {
  const [q, setQ] = useState('');
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<Device[]>([]);
  const [total, setTotal] = useState(0);
  const [selected, setSelected] = useState<Map<string, string>>(new Map());
  const [action, setAction] = useState('on');
  const [result, setResult] = useState<BulkResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const control = can(session, 'power:control');

  useEffect(() => {
    const t = setTimeout(
      () =>
        apiFull<Device[]>('GET', `/devices${query({ offset, limit: PAGE, q: q.trim() || undefined })}`).then(
          (r) => {
            setPage(r.body);
            setTotal(r.total ?? r.body.length);
          },
          (err) => setError(errorText(err)),
        ),
      150,
    );
    return () => clearTimeout(t);
  }, [q, offset]);

  const toggle = (d: Device, on: boolean) => {
    const next = new Map(selected);
    if (on) next.set(d.id, `${d.hostname ?? d.ipAddress} (${d.ipAddress})`);
    else next.delete(d.id);
    setSelected(next);
  };
  const allOnPage = page.length > 0 && page.every((d) => selected.has(d.id));
  const toggleAll = () => {
    const next = new Map(selected);
    for (const d of page) {
      if (allOnPage) next.delete(d.id);
      else next.set(d.id, `${d.hostname ?? d.ipAddress} (${d.ipAddress})`);
    }
    setSelected(next);
  };

  const run = async (e: Event) => {
    e.preventDefault();
    const label = ACTION_LABELS[action] ?? action;
    if (CONFIRMED_ACTIONS.has(action) && !confirm(`${label} on ${selected.size} devices: this interrupts whoever uses them. Continue?`)) return;
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      setResult(await api<BulkResult>('POST', '/power/bulk', { deviceIds: [...selected.keys()], action }));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section>
      <h1>Power</h1>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search{' '}
          <input
            type="search"
            value={q}
            placeholder="hostname or address"
            onInput={(e) => {
              setQ(e.currentTarget.value);
              setOffset(0);
            }}
          />
        </label>
        <output>{total.toLocaleString()} devices</output>
      </form>
      <table>
        <thead>
          <tr>
            <th scope="col">
              <input type="checkbox" aria-label="Select every device on this page" checked={allOnPage} onChange={toggleAll} />
            </th>
            <th scope="col">Address</th>
            <th scope="col">Hostname</th>
            <th scope="col">Online</th>
          </tr>
        </thead>
        <tbody>
          {page.map((d) => (
            <tr key={d.id}>
              <td>
                <input type="checkbox" aria-label={`Select ${d.hostname ?? d.ipAddress}`} checked={selected.has(d.id)} onChange={(e) => toggle(d, e.currentTarget.checked)} />
              </td>
              <td>{d.ipAddress}</td>
              <td>{d.hostname ?? '—'}</td>
              <td>{d.online ? 'online' : 'offline'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="pager">
        <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
          Previous page
        </button>
        <span>{total ? `${offset + 1}–${Math.min(offset + PAGE, total)} of ${total}` : ''}</span>
        <button type="button" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
          Next page
        </button>
      </div>
      {control && (
        <form class="bulk" onSubmit={run}>
          <label for="bulk-action">Action</label>
          <select id="bulk-action" value={action} onChange={(e) => setAction(e.currentTarget.value)}>
              {ACTIONS.map((a) => (
                <option key={a} value={a}>
                  {ACTION_LABELS[a]}
                </option>
              ))}
          </select>
          <button type="submit" disabled={busy || selected.size === 0}>
            Run on {selected.size} selected
          </button>
          {selected.size > 0 && (
            <button type="button" onClick={() => setSelected(new Map())}>
              Clear selection
            </button>
          )}
        </form>
      )}
      {busy && <p role="status">Running…</p>}
      {error && <Message kind="error">{error}</Message>}
      {result && (
        <table>
          <caption>
            {ACTION_LABELS[result.action] ?? result.action}: {result.succeeded} succeeded, {result.failed} failed
          </caption>
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">Result</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {result.results.map((r) => (
              <tr key={r.deviceId} class={r.ok ? 'ok' : 'failed'}>
                <td>{selected.get(r.deviceId) ?? r.deviceId}</td>
                <td>{r.ok ? 'done' : 'failed'}</td>
                <td>{r.error?.detail ?? (r.state ? `now ${r.state}` : r.returnValue !== undefined ? `return value ${r.returnValue}` : '')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
