/** Device credentials: list, create, edit, delete, set default. The password is write-only here too. */
import { useEffect, useState } from 'preact/hooks';
import { api, errorText, errorFields } from '../api.js';
import { Field, formatTime, Message } from '../components/field.js';
import { can, type Session } from '../session.js';

import type { Credential } from '../shapes.js';

export function CredentialsPage({ session }: { session: Session }) {
  const [list, setList] = useState<Credential[] | null>(null);
  const [editing, setEditing] = useState<Credential | 'new' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const writable = can(session, 'credentials:write');
  const reload = () => api<Credential[]>('GET', '/credentials').then(setList, (err) => setError(errorText(err)));
  useEffect(() => void reload(), []);

  const act = async (what: string, f: () => Promise<unknown>) => {
    setError(null);
    setNotice(null);
    try {
      await f();
      // Announce only once the table shows the change: a reader (or a test) acting on the notice sees the new state.
      await reload();
      setNotice(what);
    } catch (err) {
      setError(errorText(err));
    }
  };
  const makeDefault = (c: Credential) => act(`${c.name} is now the default credential.`, () => api('PUT', `/credentials/${encodeURIComponent(c.id)}`, { isDefault: true }));
  const remove = (c: Credential) => {
    if (confirm(`Delete the credential ${c.name}?`)) void act(`${c.name} deleted.`, () => api('DELETE', `/credentials/${encodeURIComponent(c.id)}`));
  };

  return (
    <section>
      <h1>Credentials</h1>
      <p>The AMT accounts scans and device actions sign in with. Passwords are sealed on the gateway and never shown.</p>
      {error && <Message kind="error">{error}</Message>}
      {notice && <Message kind="ok">{notice}</Message>}
      {writable && editing === null && (
        <button type="button" onClick={() => setEditing('new')}>
          Add credential
        </button>
      )}
      {editing !== null && (
        <CredentialForm
          key={editing === 'new' ? 'new' : editing.id}
          credential={editing === 'new' ? null : editing}
          onDone={(saved) => {
            setEditing(null);
            if (saved) void act(saved, async () => {});
          }}
        />
      )}
      {list && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Username</th>
              <th scope="col">Default</th>
              <th scope="col">Updated</th>
              {writable && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {list.map((c) => (
              <tr key={c.id}>
                <td>{c.name}</td>
                <td>{c.username}</td>
                <td>{c.isDefault ? 'default' : ''}</td>
                <td>{formatTime(c.updatedAt)}</td>
                {writable && (
                  <td class="row-actions">
                    <button type="button" onClick={() => setEditing(c)} aria-label={`Edit ${c.name}`}>
                      Edit
                    </button>
                    {!c.isDefault && (
                      <button type="button" onClick={() => makeDefault(c)} aria-label={`Make ${c.name} the default`}>
                        Make default
                      </button>
                    )}
                    <button type="button" class="danger" onClick={() => remove(c)} aria-label={`Delete ${c.name}`}>
                      Delete
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list && list.length === 0 && <p>No credentials yet. Scans find devices but cannot sign in to them.</p>}
    </section>
  );
}

function CredentialForm({ credential, onDone }: { credential: Credential | null; onDone: (message: string | null) => void }) {
  const [name, setName] = useState(credential?.name ?? '');
  const [username, setUsername] = useState(credential?.username ?? 'admin');
  // Never prefilled: the gateway cannot give it back, and an empty field keeps the stored one.
  const [password, setPassword] = useState('');
  const [isDefault, setIsDefault] = useState(credential?.isDefault ?? false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    const body: Record<string, unknown> = { username, isDefault };
    if (name.trim()) body.name = name.trim();
    if (password || !credential) body.password = password;
    try {
      if (credential) await api('PUT', `/credentials/${encodeURIComponent(credential.id)}`, body);
      else await api('POST', '/credentials', body);
      setPassword('');
      onDone(credential ? `${name || username} saved.` : `${name || username} created.`);
    } catch (err) {
      setPassword('');
      const fields = errorFields(err);
      setErrors(fields);
      setError(Object.keys(fields).length ? null : errorText(err));
    }
  };

  return (
    <form class="card" onSubmit={submit} noValidate aria-labelledby="credential-form-title">
      <h2 id="credential-form-title">{credential ? `Edit ${credential.name}` : 'New credential'}</h2>
      {error && <Message kind="error">{error}</Message>}
      <Field label="Name" error={errors.name}>
        {(p) => <input {...p} value={name} maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      <Field label="Username" error={errors.username}>
        {(p) => <input {...p} value={username} maxLength={64} autocomplete="off" onInput={(e) => setUsername(e.currentTarget.value)} />}
      </Field>
      <Field label="Password" error={errors.password} {...(credential ? { hint: 'Leave empty to keep the stored password.' } : {})}>
        {(p) => <input {...p} type="password" value={password} maxLength={256} autocomplete="new-password" onInput={(e) => setPassword(e.currentTarget.value)} />}
      </Field>
      <div class="check">
        <input id="credential-default" type="checkbox" checked={isDefault} onChange={(e) => setIsDefault(e.currentTarget.checked)} />
        <label for="credential-default">Default credential (tried first)</label>
      </div>
      <div class="actions">
        <button type="submit">{credential ? 'Save credential' : 'Create credential'}</button>
        <button type="button" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
