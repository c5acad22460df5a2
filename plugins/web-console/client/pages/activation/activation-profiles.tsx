/** Activation profiles: list, create, delete; passwords write-only, a fixed password warned about. */
import { useState } from 'preact/hooks';
import type { ActivationProfile } from '../../shapes.js';
import { api, errorFields, errorText } from '../../api.js';
import { Field, Message } from '../../components/field.js';
import { useListSection } from './list-section.js';

export function ActivationProfiles({ manager }: { manager: boolean }) {
  const { list, error, notice, act } = useListSection<ActivationProfile>('/activation/profiles');
  const [adding, setAdding] = useState(false);
  const remove = (p: ActivationProfile) =>
    act(`Delete the profile ${p.name}? Devices activated with it keep what they got.`, () => api('DELETE', `/activation/profiles/${encodeURIComponent(p.name)}`), `${p.name} deleted.`);

  return (
    <section aria-labelledby="profiles-title">
      <h2 id="profiles-title">Profiles</h2>
      {error && <Message kind="error">{error}</Message>}
      {notice && <Message kind="ok">{notice}</Message>}
      {manager && !adding && (
        <button type="button" onClick={() => setAdding(true)}>
          Add profile
        </button>
      )}
      {adding && (
        <ProfileForm
          onDone={(saved) => {
            setAdding(false);
            if (saved) void act(null, async () => {}, saved);
          }}
        />
      )}
      {list && list.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Mode</th>
              <th scope="col">Password</th>
              <th scope="col">Consent</th>
              <th scope="col">Features</th>
              <th scope="col">Connection</th>
              {manager && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {list.map((p) => (
              <tr key={p.name}>
                <td>{p.name}</td>
                <td>{p.mode === 'acm' ? 'admin control' : 'client control'}</td>
                <td>
                  {p.password === 'generate' ? 'one per device' : 'fixed'}
                  {p.warnings.map((w) => (
                    <span key={w} class="warning" title={w}>
                      {' '}⚠ shared by every device
                    </span>
                  ))}
                </td>
                <td>{p.userConsent}</td>
                <td>{(['kvm', 'sol', 'ider'] as const).filter((f) => p.features[f]).join(', ') || 'none'}</td>
                <td>{p.connection === 'cira' ? 'CIRA' : 'LAN'}</td>
                {manager && (
                  <td class="row-actions">
                    <button type="button" class="danger" onClick={() => void remove(p)} aria-label={`Delete profile ${p.name}`}>
                      Delete
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list && list.length === 0 && <p>No profile yet: an agent must name one.</p>}
    </section>
  );
}

function ProfileForm({ onDone }: { onDone: (message: string | null) => void }) {
  const [name, setName] = useState('');
  const [mode, setMode] = useState<'ccm' | 'acm'>('ccm');
  const [password, setPassword] = useState<'generate' | 'fixed'>('generate');
  const [fixedPassword, setFixedPassword] = useState('');
  const [mebxPassword, setMebxPassword] = useState('');
  const [userConsent, setUserConsent] = useState<'none' | 'kvm' | 'all'>('all');
  const [connection, setConnection] = useState<'lan' | 'cira'>('lan');
  const [features, setFeatures] = useState({ kvm: true, sol: true, ider: true });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    const body: Record<string, unknown> = { name, mode, password, userConsent, features, connection };
    if (password === 'fixed') body.fixedPassword = fixedPassword;
    if (mode === 'acm') body.mebxPassword = mebxPassword;
    try {
      await api('POST', '/activation/profiles', body);
      onDone(`${name} created.`);
    } catch (err) {
      setFixedPassword('');
      setMebxPassword('');
      const fields = errorFields(err);
      setErrors(fields);
      setError(Object.keys(fields).length ? null : errorText(err));
    }
  };

  return (
    <form class="card" onSubmit={submit} noValidate aria-labelledby="profile-form-title">
      <h3 id="profile-form-title">New profile</h3>
      {error && <Message kind="error">{error}</Message>}
      <Field label="Profile name" error={errors.name}>
        {(p) => <input {...p} value={name} maxLength={64} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      <Field label="Control mode" error={errors.mode}>
        {(p) => (
          <select {...p} value={mode} onChange={(e) => setMode(e.currentTarget.value as 'ccm' | 'acm')}>
            <option value="ccm">Client control mode</option>
            <option value="acm">Admin control mode (needs a provisioning certificate)</option>
          </select>
        )}
      </Field>
      <Field label="AMT password" error={errors.password}>
        {(p) => (
          <select {...p} value={password} onChange={(e) => setPassword(e.currentTarget.value as 'generate' | 'fixed')}>
            <option value="generate">Generate one per device</option>
            <option value="fixed">Fixed, the same for every device</option>
          </select>
        )}
      </Field>
      {password === 'fixed' && (
        <>
          <Message kind="info">A fixed password is the same on every device activated with this profile: what one device's exchange reveals opens all of them.</Message>
          <Field label="Fixed password" error={errors.fixedPassword}>
            {(p) => <input {...p} type="password" value={fixedPassword} maxLength={32} autocomplete="new-password" onInput={(e) => setFixedPassword(e.currentTarget.value)} />}
          </Field>
        </>
      )}
      {mode === 'acm' && (
        <Field label="MEBx password" error={errors.mebxPassword}>
          {(p) => <input {...p} type="password" value={mebxPassword} maxLength={32} autocomplete="new-password" onInput={(e) => setMebxPassword(e.currentTarget.value)} />}
        </Field>
      )}
      <Field label="User consent" error={errors.userConsent} {...(mode === 'ccm' ? { hint: 'Client control mode always asks consent for everything.' } : {})}>
        {(p) => (
          <select {...p} value={userConsent} onChange={(e) => setUserConsent(e.currentTarget.value as 'none' | 'kvm' | 'all')}>
            <option value="all">For everything</option>
            <option value="kvm">For KVM only</option>
            <option value="none">None</option>
          </select>
        )}
      </Field>
      <Field label="Connection" error={errors.connection}>
        {(p) => (
          <select {...p} value={connection} onChange={(e) => setConnection(e.currentTarget.value as 'lan' | 'cira')}>
            <option value="lan">LAN: reached at its address</option>
            <option value="cira">CIRA: dials in to this gateway</option>
          </select>
        )}
      </Field>
      {(['kvm', 'sol', 'ider'] as const).map((f) => (
        <div class="check" key={f}>
          <input id={`profile-${f}`} type="checkbox" checked={features[f]} onChange={(e) => setFeatures({ ...features, [f]: e.currentTarget.checked })} />
          <label for={`profile-${f}`}>{f === 'kvm' ? 'KVM' : f === 'sol' ? 'Serial over LAN' : 'IDE redirection'}</label>
        </div>
      ))}
      <div class="actions">
        <button type="submit">Create profile</button>
        <button type="button" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
