/** Provisioning certificates by DNS suffix: upload a PFX (read in the browser, sent base64), see expiry, delete. */
import { useState } from 'preact/hooks';
import type { ProvisioningDomain } from '../../shapes.js';
import { api, errorFields, errorText } from '../../api.js';
import { Field, formatTime, Message } from '../../components/field.js';
import { useListSection } from './list-section.js';

/** A file's bytes as base64, without building a string per byte of a large file. */
async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function ActivationDomains({ manager }: { manager: boolean }) {
  const { list, error, notice, setError, setNotice, reload, act } = useListSection<ProvisioningDomain>('/activation/domains');
  const [suffix, setSuffix] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});

  const upload = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setNotice(null);
    setErrors({});
    if (!file) return setErrors({ certificate: 'choose the PFX file' });
    try {
      const domain = await api<ProvisioningDomain>('POST', '/activation/domains', { suffix, certificate: await base64Of(file), certificatePassword: password });
      setPassword('');
      await reload();
      setNotice(`Certificate for ${domain.suffix} stored.`);
    } catch (err) {
      setPassword('');
      const fields = errorFields(err);
      setErrors(fields);
      setError(Object.keys(fields).length ? null : errorText(err));
    }
  };
  const remove = (d: ProvisioningDomain) => act(`Delete the provisioning certificate for ${d.suffix}?`, () => api('DELETE', `/activation/domains/${encodeURIComponent(d.id)}`), `${d.suffix} deleted.`);

  return (
    <section aria-labelledby="domains-title">
      <h2 id="domains-title">Provisioning certificates</h2>
      <p>Admin control mode signs with the certificate of the domain a device's DNS suffix falls under. The file and its password are sealed and never shown.</p>
      {error && <Message kind="error">{error}</Message>}
      {notice && <Message kind="ok">{notice}</Message>}
      {list && list.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">DNS suffix</th>
              <th scope="col">Issued to</th>
              <th scope="col">Root (SHA-256)</th>
              <th scope="col">Expires</th>
              {manager && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {list.map((d) => (
              <tr key={d.id} class={d.expiresSoon ? 'unverified' : undefined}>
                <td>{d.suffix}</td>
                <td>{d.subject}</td>
                <td>
                  <code>{d.rootSha256.slice(0, 16)}…</code>
                </td>
                <td>
                  {formatTime(d.expiresAt)}
                  {d.expiresSoon && <strong> expires soon</strong>}
                </td>
                {manager && (
                  <td class="row-actions">
                    <button type="button" class="danger" onClick={() => void remove(d)} aria-label={`Delete the certificate for ${d.suffix}`}>
                      Delete
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list && list.length === 0 && <p>No provisioning certificate: admin control mode profiles cannot activate yet.</p>}
      {manager && (
        <form class="card" onSubmit={upload} noValidate aria-labelledby="domain-form-title">
          <h3 id="domain-form-title">Upload a provisioning certificate</h3>
          <Field label="DNS suffix" error={errors.suffix}>
            {(p) => <input {...p} value={suffix} maxLength={253} placeholder="corp.example.com" onInput={(e) => setSuffix(e.currentTarget.value)} />}
          </Field>
          <Field label="Certificate file (PFX)" error={errors.certificate}>
            {(p) => <input {...p} type="file" accept=".pfx,.p12,application/x-pkcs12" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />}
          </Field>
          <Field label="Certificate password" error={errors.certificatePassword}>
            {(p) => <input {...p} type="password" value={password} maxLength={256} autocomplete="off" onInput={(e) => setPassword(e.currentTarget.value)} />}
          </Field>
          <div class="actions">
            <button type="submit">Upload certificate</button>
          </div>
        </form>
      )}
    </section>
  );
}
