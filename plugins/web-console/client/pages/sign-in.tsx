import { useState } from 'preact/hooks';
import { ApiError, api, errorText } from '../api.js';
import { Field, Message } from '../components/field.js';
import type { Session } from '../session.js';

import type { LoginResponse } from '../shapes.js';

export function SignIn({ onSignedIn, notice }: { onSignedIn: (s: Session) => void; notice: string | null }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const res = await api<LoginResponse>('POST', '/auth/login', { username, password });
      setPassword('');
      onSignedIn({ token: res.token, expiresAt: res.expiresAt, user: res.user });
    } catch (err) {
      setPassword('');
      if (err instanceof ApiError && err.status === 401) setError('Wrong username or password.');
      else if (err instanceof ApiError && err.status === 429)
        setError(`Too many failed sign-ins from this address. Try again ${err.retryAfter ? `in ${err.retryAfter} seconds` : 'later'}.`);
      else if (err instanceof ApiError && err.status === 400) setError('Enter a username and a password.');
      else setError(`Could not sign in: ${errorText(err)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in">
      <h1>amt-gateway</h1>
      <form onSubmit={submit} aria-labelledby="sign-in-title">
        <h2 id="sign-in-title">Sign in</h2>
        {notice && <Message kind="info">{notice}</Message>}
        {error && <Message kind="error">{error}</Message>}
        <Field label="Username">{(p) => <input {...p} name="username" autocomplete="username" required value={username} onInput={(e) => setUsername(e.currentTarget.value)} />}</Field>
        <Field label="Password">
          {(p) => <input {...p} name="password" type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />}
        </Field>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
