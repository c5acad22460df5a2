import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { Field } from '../components/field.js';
import type { Credential, StartScanRequest as ScanRequest } from '../shapes.js';

export type { ScanRequest };

interface Props {
  onStart: (r: ScanRequest) => Promise<void>;
  errors: Record<string, string>;
  running: boolean;
  canReadCredentials: boolean;
}

export function ScanForm({ onStart, errors, running, canReadCredentials }: Props) {
  const [range, setRange] = useState('');
  const [credentialId, setCredentialId] = useState('');
  const [timeout, setTimeoutMs] = useState('');
  const [concurrency, setConcurrency] = useState('');
  const [credentials, setCredentials] = useState<Credential[]>([]);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (canReadCredentials) api<Credential[]>('GET', '/credentials').then(setCredentials, () => setCredentials([]));
  }, [canReadCredentials]);

  const submit = async (e: Event) => {
    e.preventDefault();
    const request: ScanRequest = { range: range.trim() };
    if (credentialId) request.credentialId = credentialId;
    // Numbers go as typed so the API's own validation names a bad one.
    if (timeout.trim()) request.timeoutMs = Number(timeout);
    if (concurrency.trim()) request.concurrency = Number(concurrency);
    setBusy(true);
    try {
      await onStart(request);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="scan-form" onSubmit={submit} noValidate>
      <Field label="Range" error={errors.range} hint="Addresses, CIDR blocks or ranges, comma-separated: 10.0.0.0/24, 10.0.1.1-50">
        {(p) => <input {...p} name="range" value={range} maxLength={2000} required onInput={(e) => setRange(e.currentTarget.value)} />}
      </Field>
      <Field label="Credential" error={errors.credentialId}>
        {(p) => (
          <select {...p} value={credentialId} onChange={(e) => setCredentialId(e.currentTarget.value)}>
            <option value="">Default, then the others</option>
            {credentials.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name} ({c.username}){c.isDefault ? ' · default' : ''}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Timeout (ms)" error={errors.timeoutMs}>
        {(p) => <input {...p} name="timeoutMs" inputMode="numeric" value={timeout} placeholder="site default" onInput={(e) => setTimeoutMs(e.currentTarget.value)} />}
      </Field>
      <Field label="Concurrency" error={errors.concurrency}>
        {(p) => <input {...p} name="concurrency" inputMode="numeric" value={concurrency} placeholder="site default" onInput={(e) => setConcurrency(e.currentTarget.value)} />}
      </Field>
      <button type="submit" disabled={busy || running}>
        Start scan
      </button>
    </form>
  );
}
