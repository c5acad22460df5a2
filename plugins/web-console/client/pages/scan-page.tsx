/** Start a scan, watch it live from /scanHub (progress and discoveries), cancel it, see recent scans. */
import { useEffect, useState } from 'preact/hooks';
import { api, errorText, errorFields } from '../api.js';
import { Message } from '../components/field.js';
import { hubReady, useHubEvent, type Device, type Scan } from '../hub.js';
import { can, type Session } from '../session.js';
import { ScanForm, type ScanRequest } from './scan-form.js';
import { RecentScans } from './recent-scans.js';

/** Discoveries listed per scan; the count goes on beyond. */
const MAX_LISTED = 1000;

interface Live {
  scan: Scan;
  discovered: Device[];
  /** From the last ScanProgress: percent by probes decided (it moves while silent addresses time out) and the time left. */
  percent?: number;
  etaSeconds?: number | null;
}

/** "about 1 min 20 s left" */
function timeLeft(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '';
  if (seconds < 60) return ` · about ${seconds} s left`;
  return ` · about ${Math.floor(seconds / 60)} min ${seconds % 60} s left`;
}

export function ScanPage({ session }: { session: Session }) {
  const [live, setLive] = useState<Record<string, Live>>({});
  const [currentId, setCurrentId] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [recentVersion, setRecentVersion] = useState(0);

  // Events may arrive before POST /scan/start answers: they are kept per scan id from the start.
  const patch = (scanId: string, f: (l: Live) => Live) =>
    setLive((all) => ({ ...all, [scanId]: f(all[scanId] ?? { scan: { id: scanId, range: '', status: 'running', total: 0, scanned: 0, found: 0, startedAt: new Date().toISOString() }, discovered: [] }) }));
  const setScan = (scan: Scan) => patch(scan.id, (l) => ({ ...l, scan: { ...l.scan, ...scan } }));
  const finished = (scan: Scan) => {
    setScan(scan);
    setRecentVersion((v) => v + 1);
  };
  useHubEvent('ScanStarted', setScan);
  useHubEvent('ScanProgress', (p) =>
    patch(p.scanId, (l) => ({
      ...l,
      scan: { ...l.scan, scanned: Math.max(l.scan.scanned, p.scanned), total: p.total, found: Math.max(l.scan.found, p.found) },
      percent: Math.max(l.percent ?? 0, p.percent),
      etaSeconds: p.etaSeconds,
    })),
  );
  useHubEvent('DeviceDiscovered', (e) =>
    patch(e.scanId, (l) => (l.discovered.length >= MAX_LISTED || l.discovered.some((d) => d.id === e.device.id) ? l : { ...l, discovered: [...l.discovered, e.device] })),
  );
  useHubEvent('ScanCompleted', finished);
  useHubEvent('ScanCancelled', finished);
  useHubEvent('ScanFailed', finished);

  const start = async (request: ScanRequest) => {
    setFieldErrors({});
    setError(null);
    await hubReady();
    try {
      const scan = await api<Scan>('POST', '/scan/start', request);
      patch(scan.id, (l) => ({ ...l, scan: l.scan.status === 'running' ? { ...scan, scanned: Math.max(scan.scanned, l.scan.scanned), found: Math.max(scan.found, l.scan.found) } : { ...scan, ...l.scan } }));
      setCurrentId(scan.id);
      setRecentVersion((v) => v + 1);
    } catch (err) {
      const fields = errorFields(err);
      setFieldErrors(fields);
      if (Object.keys(fields).length === 0) setError(errorText(err));
    }
  };

  const cancel = async (id: string) => {
    try {
      finished(await api<Scan>('POST', `/scan/cancel/${encodeURIComponent(id)}`));
    } catch (err) {
      setError(errorText(err));
    }
  };

  // A scan that ran while the hub was away still ends: read it once after it should be over.
  const current = currentId ? live[currentId] : undefined;
  useEffect(() => {
    if (!current || current.scan.status !== 'running') return;
    const t = setInterval(() => api<Scan>('GET', `/scan/${encodeURIComponent(current.scan.id)}`).then((s) => s.status !== 'running' && finished(s), () => {}), 5000);
    return () => clearInterval(t);
  }, [current?.scan.id, current?.scan.status]);

  const byAddresses = current && current.scan.total > 0 ? Math.floor((current.scan.scanned / current.scan.total) * 100) : current?.scan.status === 'completed' ? 100 : 0;
  const percent = Math.max(byAddresses, current?.percent ?? 0);
  const shown = current?.scan.status === 'completed' ? 100 : percent;
  return (
    <section>
      <h1>Network scan</h1>
      {can(session, 'scan:run') && <ScanForm onStart={start} errors={fieldErrors} running={current?.scan.status === 'running'} canReadCredentials={can(session, 'credentials:read')} />}
      {error && <Message kind="error">{error}</Message>}
      {current && (
        <section aria-labelledby="current-scan" class="current-scan">
          <h2 id="current-scan">Scan of {current.scan.range || '…'}</h2>
          <div class="progress-row">
            <div role="progressbar" aria-label="Scan progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={shown} aria-valuetext={`${shown}%, ${current.scan.scanned} of ${current.scan.total} addresses`} class="progress">
              <div class="progress-fill" style={{ width: `${shown}%` }} />
            </div>
            <span>
              {shown}% · {current.scan.scanned.toLocaleString()} / {current.scan.total.toLocaleString()} addresses · {current.scan.found} found
              {current.scan.status === 'running' ? timeLeft(current.etaSeconds) : ''} · <strong>{current.scan.status}</strong>
            </span>
            {current.scan.status === 'running' && (
              <button type="button" onClick={() => cancel(current.scan.id)}>
                Cancel scan
              </button>
            )}
          </div>
          <table>
            <caption>Discovered devices ({current.discovered.length})</caption>
            <thead>
              <tr>
                <th scope="col">Address</th>
                <th scope="col">Hostname</th>
                <th scope="col">Firmware</th>
                <th scope="col">Provisioning</th>
                <th scope="col">Sign-in</th>
              </tr>
            </thead>
            <tbody>
              {current.discovered.map((d) => (
                <tr key={d.id}>
                  <td>
                    <a href={`/devices/${encodeURIComponent(d.id)}`}>{d.ipAddress}</a>
                  </td>
                  <td>{d.hostname ?? '—'}</td>
                  <td>{d.firmwareVersion ?? '—'}</td>
                  <td>{d.provisioningState ?? 'unknown'}</td>
                  <td>{d.authStatus}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {can(session, 'devices:read') && <RecentScans version={recentVersion} onCancel={cancel} canCancel={can(session, 'scan:run')} />}
    </section>
  );
}
