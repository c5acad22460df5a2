/** Gateway users (users:manage): list, create, change permissions and password, delete. */
import { useEffect, useState } from 'preact/hooks';
import { api, errorText, errorFields } from '../api.js';
import { Field, formatTime, Message } from '../components/field.js';
import type { Session } from '../session.js';

import type { User } from '../shapes.js';

export function UsersPage({ session }: { session: Session }) {
  const [users, setUsers] = useState<User[] | null>(null);
  const [editing, setEditing] = useState<User | 'new' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const reload = () => api<User[]>('GET', '/users').then(setUsers, (err) => setError(errorText(err)));
  useEffect(() => void reload(), []);
  // A manager grants from what this gateway knows; the signed-in manager's own list is every permission when it holds '*'.
  const known = [...new Set([...session.user.permissions, ...(users ?? []).flatMap((u) => u.permissions)])].filter((p) => p !== '*').sort();

  const remove = async (u: User) => {
    if (!confirm(`Delete the user ${u.username}? Their sessions end at once.`)) return;
    setError(null);
    try {
      await api('DELETE', `/users/${encodeURIComponent(u.username)}`);
      await reload();
      setNotice(`${u.username} deleted.`);
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <section>
      <h1>Users</h1>
      {error && <Message kind="error">{error}</Message>}
      {notice && <Message kind="ok">{notice}</Message>}
      {editing === null && (
        <button type="button" onClick={() => setEditing('new')}>
          Add user
        </button>
      )}
      {editing !== null && (
        <UserForm
          key={editing === 'new' ? 'new' : editing.username}
          user={editing === 'new' ? null : editing}
          known={known}
          onDone={(message) => {
            setEditing(null);
            if (message) void reload().then(() => setNotice(message));
          }}
        />
      )}
      {users && (
        <table>
          <thead>
            <tr>
              <th scope="col">Username</th>
              <th scope="col">Permissions</th>
              <th scope="col">Updated</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => (
              <tr key={u.username}>
                <td>{u.username}</td>
                <td class="permissions">{u.permissions.join(', ') || 'none'}</td>
                <td>{formatTime(u.updatedAt)}</td>
                <td class="row-actions">
                  <button type="button" onClick={() => setEditing(u)} aria-label={`Edit ${u.username}`}>
                    Edit
                  </button>
                  <button type="button" class="danger" onClick={() => remove(u)} aria-label={`Delete ${u.username}`}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function UserForm({ user, known, onDone }: { user: User | null; known: string[]; onDone: (message: string | null) => void }) {
  const [username, setUsername] = useState(user?.username ?? '');
  const [password, setPassword] = useState('');
  const [granted, setGranted] = useState<Set<string>>(new Set(user?.permissions ?? []));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const toggle = (p: string, on: boolean) => {
    const next = new Set(granted);
    if (on) next.add(p);
    else next.delete(p);
    setGranted(next);
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    const permissions = known.filter((p) => granted.has(p));
    try {
      if (user) {
        const body: Record<string, unknown> = { permissions };
        if (password) body.password = password;
        await api('PUT', `/users/${encodeURIComponent(user.username)}`, body);
      } else {
        await api('POST', '/users', { username, password, permissions });
      }
      setPassword('');
      onDone(user ? `${user.username} saved.` : `${username} created.`);
    } catch (err) {
      setPassword('');
      const fields = errorFields(err);
      setErrors(fields);
      setError(Object.keys(fields).length ? null : errorText(err));
    }
  };
  return (
    <form class="card" onSubmit={submit} noValidate aria-labelledby="user-form-title">
      <h2 id="user-form-title">{user ? `Edit ${user.username}` : 'New user'}</h2>
      {error && <Message kind="error">{error}</Message>}
      {!user && <Field label="Username" error={errors.username}>{(p) => <input {...p} value={username} maxLength={64} autocomplete="off" onInput={(e) => setUsername(e.currentTarget.value)} />}</Field>}
      <Field label={user ? 'New password' : 'Password'} error={errors.password} hint={user ? 'Leave empty to keep it. Changing it signs the user out.' : 'At least 8 characters.'}>
        {(p) => <input {...p} type="password" value={password} maxLength={256} autocomplete="new-password" onInput={(e) => setPassword(e.currentTarget.value)} />}
      </Field>
      <fieldset>
        <legend>Permissions</legend>
        {errors.permissions && (
          <span class="field-error" role="alert">
            {errors.permissions}
          </span>
        )}
        {known.map((p) => (
          <div class="check" key={p}>
            <input id={`perm-${p}`} type="checkbox" checked={granted.has(p)} onChange={(e) => toggle(p, e.currentTarget.checked)} />
            <label for={`perm-${p}`}>{p}</label>
          </div>
        ))}
      </fieldset>
      <div class="actions">
        <button type="submit">{user ? 'Save user' : 'Create user'}</button>
        <button type="button" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
