/** test-credential and test-wsman, each a form with its result. */
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, errorText, errorFields, query } from '../api.js';
import { Field, Message } from '../components/field.js';
import type { Credential, CredentialTestResult, WsmanTestResult } from '../shapes.js';

function Result({ value }: { value: CredentialTestResult | WsmanTestResult }) {
  const flat = Object.entries(value).flatMap(([k, v]) =>
    v && typeof v === 'object' ? Object.entries(v as Record<string, unknown>).map(([k2, v2]) => [`${k}.${k2}`, v2] as const) : [[k, v] as const],
  );
  return (
    <dl class="details result">
      {flat.map(([k, v]) => (
        <Fragment key={k}>
          <dt>{k}</dt>
          <dd>{v === null || v === undefined ? '—' : String(v)}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

export function DiagnosticsPage() {
  const [credentials, setCredentials] = useState<Credential[]>([]);
  useEffect(() => {
    api<Credential[]>('GET', '/credentials').then(setCredentials, () => setCredentials([]));
  }, []);
  return (
    <section>
      <h1>Diagnostics</h1>
      <DiagnosticForm
        title="Test a credential"
        button="Test credential"
        credentials={credentials}
        addressLabel="Device address, id or UUID (optional)"
        request={(id, ip) => `/test/test-credential${query({ id, ip })}`}
      />
      <DiagnosticForm
        title="Test WS-Management"
        button="Test WS-Management"
        credentials={credentials}
        addressLabel="Device address, id or UUID"
        request={(id, ip) => `/test/test-wsman/${encodeURIComponent(ip)}${query({ credentialId: id })}`}
      />
    </section>
  );
}

interface FormProps {
  title: string;
  button: string;
  credentials: Credential[];
  addressLabel: string;
  request: (credentialId: string, ip: string) => string;
}

function DiagnosticForm({ title, button, credentials, addressLabel, request }: FormProps) {
  const [credentialId, setCredentialId] = useState('');
  const [ip, setIp] = useState('');
  const [result, setResult] = useState<CredentialTestResult | WsmanTestResult | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setResult(null);
    setError(null);
    setErrors({});
    try {
      setResult(await api<CredentialTestResult | WsmanTestResult>('GET', request(credentialId, ip.trim())));
    } catch (err) {
      const fields = errorFields(err);
      setErrors({ ip: fields.ip ?? fields.ip_address ?? '', credentialId: fields.credentialId ?? fields.id ?? '' });
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const slug = title.toLowerCase().replace(/\W+/g, '-');
  return (
    <form class="card" onSubmit={submit} aria-labelledby={slug}>
      <h2 id={slug}>{title}</h2>
      <Field label="Credential" error={errors.credentialId || undefined}>
        {(p) => (
          <select {...p} value={credentialId} onChange={(e) => setCredentialId(e.currentTarget.value)}>
            <option value="">The default credential</option>
            {credentials.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name} ({c.username})
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={addressLabel} error={errors.ip || undefined}>
        {(p) => <input {...p} value={ip} maxLength={45} onInput={(e) => setIp(e.currentTarget.value)} />}
      </Field>
      <button type="submit" disabled={busy}>
        {button}
      </button>
      {busy && <p role="status">Testing…</p>}
      {error && <Message kind="error">{error}</Message>}
      {result && <Result value={result} />}
    </form>
  );
}
