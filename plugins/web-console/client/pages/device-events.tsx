import { useEffect, useState } from 'preact/hooks';
import { apiFull, errorText } from '../api.js';
import { formatTime, Message } from '../components/field.js';
import type { SerialQueue } from '../components/serial-queue.js';

import type { MonitorEvent } from '../shapes.js';

const PAGE = 50;

export function DeviceEvents({ deviceId, queue }: { deviceId: string; queue: SerialQueue }) {
  const [events, setEvents] = useState<MonitorEvent[] | null>(null);
  const [total, setTotal] = useState(0);
  const [offset, setOffset] = useState(0);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    queue(() => apiFull<MonitorEvent[]>('GET', `/monitor/${encodeURIComponent(deviceId)}/events?offset=${offset}&limit=${PAGE}`)).then(
      (r) => {
        setEvents(r.body);
        setTotal(r.total ?? r.body.length);
      },
      (err) => setError(errorText(err)),
    );
  }, [deviceId, offset]);
  return (
    <section aria-labelledby="events-title">
      <h2 id="events-title">Event log</h2>
      {error && <Message kind="error">{error}</Message>}
      {!events && !error && <p>Reading the event log…</p>}
      {events && (
        <>
          <table>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Source</th>
                <th scope="col">Severity</th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {events.map((e, i) => (
                <tr key={offset + i}>
                  <td>{formatTime(e.time)}</td>
                  <td>{e.source}</td>
                  <td>{e.severity}</td>
                  <td>{e.description}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {events.length === 0 && <p>The event log is empty.</p>}
          <div class="pager">
            <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
              Newer events
            </button>
            <span>
              {total ? `${offset + 1}–${Math.min(offset + PAGE, total)} of ${total}` : ''}
            </span>
            <button type="button" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
              Older events
            </button>
          </div>
        </>
      )}
    </section>
  );
}
