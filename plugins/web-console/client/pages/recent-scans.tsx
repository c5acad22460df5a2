import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import { formatTime, Message } from '../components/field.js';
import type { Scan } from '../hub.js';

export function RecentScans({ version, onCancel, canCancel }: { version: number; onCancel: (id: string) => void; canCancel: boolean }) {
  const [scans, setScans] = useState<Scan[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<Scan[]>('GET', '/scans?limit=20').then(setScans, (err) => setError(errorText(err)));
  }, [version]);
  return (
    <section aria-labelledby="recent-scans">
      <h2 id="recent-scans">Recent scans</h2>
      {error && <Message kind="error">{error}</Message>}
      {scans && (
        <table>
          <thead>
            <tr>
              <th scope="col">Started</th>
              <th scope="col">Range</th>
              <th scope="col">Status</th>
              <th scope="col">Scanned</th>
              <th scope="col">Found</th>
              <th scope="col">Finished</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {scans.map((s) => (
              <tr key={s.id}>
                <td>{formatTime(s.startedAt)}</td>
                <td>{s.range}</td>
                <td>{s.status}</td>
                <td>
                  {s.scanned} / {s.total}
                </td>
                <td>{s.found}</td>
                <td>{formatTime(s.finishedAt)}</td>
                <td>
                  {canCancel && s.status === 'running' && (
                    <button type="button" onClick={() => onCancel(s.id)}>
                      Cancel
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {scans && scans.length === 0 && <p>No scans yet.</p>}
    </section>
  );
}
