import { useState } from 'preact/hooks';
import { ApiError, login } from '../api';

/**
 * The login gate of a served board: the server's password, exchanged for a bearer that stays in
 * this tab's session storage (never in a URL).
 */
export function LoginGate({ onLoggedIn }: { onLoggedIn: () => void }) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      await login(password);
      setPassword('');
      onLoggedIn();
    } catch (failure) {
      const known = failure instanceof ApiError;
      // The server's message says what was wrong ("Wrong password", "Too many attempts…"): said once.
      setError(known && failure.code === 'AUTH_INVALID' ? failure.message : known ? `${failure.code}: ${failure.message}` : String(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="login" onSubmit={submit} aria-label="Log in">
      <h1>Log in to this taskdag server</h1>
      <p>The board is read-only. The password is the server's (server.env); ask its operator.</p>
      <label>
        Password
        <input type="password" name="password" autocomplete="current-password" value={password} onInput={(event) => setPassword((event.target as HTMLInputElement).value)} required />
      </label>
      <button type="submit" disabled={busy}>
        Log in
      </button>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  );
}
