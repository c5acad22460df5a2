/** What agents did: newest records first, live from the hub; activations waiting for approval; one-time codes for deactivation. */
import { useEffect, useState } from 'preact/hooks';
import type { ActivationApproval, ActivationRecord } from '../../shapes.js';
import { api, errorText } from '../../api.js';
import { formatTime, Message } from '../../components/field.js';
import { useHubEvent } from '../../hub.js';

const PAGE = 50;

export function ActivationRecords({ manager }: { manager: boolean }) {
  const [records, setRecords] = useState<ActivationRecord[] | null>(null);
  const [approvals, setApprovals] = useState<ActivationApproval[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [code, setCode] = useState<{ uuid: string; code: string; expiresAt: string } | null>(null);
  const reload = () =>
    Promise.all([api<ActivationRecord[]>('GET', `/activation/records?limit=${PAGE}`), api<ActivationApproval[]>('GET', '/activation/approvals')]).then(
      ([r, a]) => {
        setRecords(r);
        setApprovals(a.filter((x) => x.recordId));
      },
      (err) => setError(errorText(err)),
    );
  useEffect(() => void reload(), []);
  useHubEvent('ActivationProgress', (event) => {
    setRecords((current) => {
      if (!current) return current;
      const at = current.findIndex((r) => r.id === event.recordId);
      if (at < 0) {
        void reload();
        return current;
      }
      const next = [...current];
      next[at] = { ...next[at]!, step: event.step, outcome: event.outcome, calls: event.calls, ...(event.error ? { error: event.error } : {}) };
      if (event.outcome === 'waiting' || event.outcome === 'succeeded' || event.outcome === 'failed') void reload();
      return next;
    });
  });

  const approve = async (a: ActivationApproval) => {
    if (!confirm(`Activate ${a.uuid} from ${a.remoteAddress ?? '?'}? It replaces the managed device with this UUID: its password, CIRA account and provisioning.`)) return;
    try {
      await api('POST', `/activation/approvals/${encodeURIComponent(a.uuid)}`);
      await reload();
      setNotice(`The activation of ${a.uuid} goes on.`);
    } catch (err) {
      setError(errorText(err));
    }
  };
  const issueCode = async (uuid: string) => {
    try {
      setCode(await api('POST', '/activation/codes', { uuid }));
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <section aria-labelledby="records-title">
      <h2 id="records-title">Records</h2>
      {error && <Message kind="error">{error}</Message>}
      {notice && <Message kind="ok">{notice}</Message>}
      {code && (
        <Message kind="info">
          One-time code for {code.uuid}: <code>{code.code}</code> (until {formatTime(code.expiresAt)}). Type it as the password: <code>rpc deactivate -u wss://{location.host}/activate --password {code.code}</code>
        </Message>
      )}
      {approvals.map((a) => (
        <Message kind="info" key={a.uuid}>
          {a.uuid} from {a.remoteAddress} waits: it is already managed device {a.deviceId}.{' '}
          {manager && (
            <button type="button" onClick={() => void approve(a)} aria-label={`Approve the activation of ${a.uuid}`}>
              Approve
            </button>
          )}
        </Message>
      ))}
      {records && records.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Started</th>
              <th scope="col">Action</th>
              <th scope="col">UUID</th>
              <th scope="col">Host</th>
              <th scope="col">Profile</th>
              <th scope="col">Outcome</th>
              <th scope="col">Step</th>
              <th scope="col">Requests</th>
              {manager && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {records.map((r) => (
              <tr key={r.id}>
                <td>{formatTime(r.startedAt)}</td>
                <td>{r.task ? `${r.action} ${r.task}` : r.action}</td>
                <td>{r.deviceId ? <a href={`/devices/${encodeURIComponent(r.deviceId)}`}>{r.uuid}</a> : r.uuid}</td>
                <td>{r.hostname}</td>
                <td>{r.profile ?? '—'}</td>
                <td>
                  {r.outcome}
                  {r.error && <span title={r.error.code}>: {r.error.detail}</span>}
                </td>
                <td>{r.step}</td>
                <td>{r.calls}</td>
                {manager && (
                  <td class="row-actions">
                    {r.action === 'activate' && r.outcome === 'succeeded' && (
                      <button type="button" onClick={() => void issueCode(r.uuid)} aria-label={`One-time code for ${r.uuid}`}>
                        One-time code
                      </button>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {records && records.length === 0 && <p>No agent has connected yet.</p>}
    </section>
  );
}
