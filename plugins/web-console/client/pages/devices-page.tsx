/** Every device in one scrolling table: only the visible rows exist in the DOM, fetched page by page. */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { errorText } from '../api.js';
import { DEVICE_COLUMNS, DeviceCells } from '../components/device-cells.js';
import { DeviceWindow, type DeviceFilters } from '../components/device-window.js';
import { Message } from '../components/field.js';
import { useHubEvent } from '../hub.js';
import type { Session } from '../session.js';

const ROW_HEIGHT = 34;
const OVERSCAN = 10;

export function DevicesPage(_: { session: Session }) {
  const [filters, setFilters] = useState<DeviceFilters>({ q: '', provisioningState: '', online: '' });
  const [typed, setTyped] = useState('');
  const [descending, setDescending] = useState(false);
  const [version, setVersion] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [range, setRange] = useState({ from: 0, to: 40 });
  const scroller = useRef<HTMLDivElement>(null);
  const firstRowsMarked = useRef(false);

  const win = useMemo(() => new DeviceWindow(filters, descending, () => setVersion((v) => v + 1), (err) => setError(errorText(err))), [filters, descending]);
  useEffect(() => {
    setError(null);
    if (scroller.current) scroller.current.scrollTop = 0;
    setRange((r) => ({ from: 0, to: r.to - r.from }));
    return () => win.close();
  }, [win]);

  // Search as you type, once typing pauses.
  useEffect(() => {
    const t = setTimeout(() => setFilters((f) => (f.q === typed ? f : { ...f, q: typed })), 250);
    return () => clearTimeout(t);
  }, [typed]);

  useEffect(() => win.want(range.from, range.to), [win, range, version]);

  useHubEvent('DeviceStatusChanged', (e) => {
    if (win.update(e.deviceId, { online: e.online, ...(e.lastSeen ? { lastSeen: e.lastSeen } : {}) })) setVersion((v) => v + 1);
  });

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    let frame = 0;
    const measure = () => {
      frame = 0;
      const first = Math.max(0, Math.floor(el.scrollTop / ROW_HEIGHT) - OVERSCAN);
      const count = Math.ceil(el.clientHeight / ROW_HEIGHT) + OVERSCAN * 2;
      setRange((r) => (r.from === first && r.to === first + count ? r : { from: first, to: first + count }));
    };
    const onScroll = () => {
      if (!frame) frame = requestAnimationFrame(measure);
    };
    measure();
    el.addEventListener('scroll', onScroll, { passive: true });
    window.addEventListener('resize', onScroll);
    return () => {
      el.removeEventListener('scroll', onScroll);
      window.removeEventListener('resize', onScroll);
      if (frame) cancelAnimationFrame(frame);
    };
  }, []);

  const total = win.total;
  const from = Math.min(range.from, total ?? 0);
  const to = Math.min(range.to, total ?? 0);
  const rows = [];
  for (let i = from; i < to; i++) {
    const d = win.row(i);
    rows.push(
      // Keyed by position in the window, so scrolling reuses the same row elements and only their text changes.
      <tr key={i - from} aria-rowindex={i + 2}>
        {d ? (
          <>
            <td>
              <a href={`/devices/${encodeURIComponent(d.id)}`}>{d.ipAddress}</a>
            </td>
            <DeviceCells device={d} />
          </>
        ) : (
          <td colSpan={DEVICE_COLUMNS.length} class="loading">
            loading…
          </td>
        )}
      </tr>,
    );
  }
  useEffect(() => {
    if (!firstRowsMarked.current && total !== null && win.row(0)) {
      firstRowsMarked.current = true;
      performance.mark('devices:first-rows');
    }
  });

  return (
    <section class="devices">
      <h1>Devices</h1>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search <input type="search" value={typed} placeholder="hostname or address" maxLength={255} onInput={(e) => setTyped(e.currentTarget.value)} />
        </label>
        <label for="filter-provisioning">Provisioning state</label>
        <select id="filter-provisioning" value={filters.provisioningState} onChange={(e) => setFilters({ ...filters, provisioningState: e.currentTarget.value })}>
            <option value="">any</option>
            <option value="PRE">PRE</option>
            <option value="IN">IN</option>
            <option value="POST">POST</option>
        </select>
        <label for="filter-online">Online</label>
        <select id="filter-online" value={filters.online} onChange={(e) => setFilters({ ...filters, online: e.currentTarget.value })}>
            <option value="">any</option>
            <option value="true">online</option>
            <option value="false">offline</option>
        </select>
        <output aria-live="polite">{total === null ? 'Loading…' : `${total.toLocaleString()} devices`}</output>
      </form>
      {error && <Message kind="error">{error}</Message>}
      <div class="scroller" ref={scroller} tabIndex={0} aria-label="Device list">
        <table aria-rowcount={(total ?? 0) + 1}>
          <thead>
            <tr aria-rowindex={1}>
              <th scope="col" aria-sort={descending ? 'descending' : 'ascending'}>
                <button type="button" class="sort" onClick={() => setDescending(!descending)}>
                  Address {descending ? '▼' : '▲'}
                </button>
              </th>
              {DEVICE_COLUMNS.slice(1).map((c) => (
                <th scope="col" key={c}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {from > 0 && <tr class="spacer" aria-hidden="true" style={{ height: `${from * ROW_HEIGHT}px` }} />}
            {rows}
            {total !== null && to < total && <tr class="spacer" aria-hidden="true" style={{ height: `${(total - to) * ROW_HEIGHT}px` }} />}
          </tbody>
        </table>
        {total === 0 && <p class="empty">No devices match.</p>}
      </div>
    </section>
  );
}
