import { useState } from 'preact/hooks';
import { api, ApiError, messageOf, waitText, type User } from '../api';
import { ErrorMessage, PageHeading } from '../ui';

export function LoginPage({ next, onLoggedIn }: { next: string; onLoggedIn: (user: User, next: string) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { user } = await api.logIn(email, password);
      onLoggedIn(user, next);
    } catch (e) {
      setError(loginMessage(e));
      setBusy(false);
    }
  };

  return (
    <section class="login card">
      <PageHeading>Log in to Docshelf</PageHeading>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <label for="email">Email</label>
        <input
          id="email"
          name="email"
          type="email"
          autoComplete="username"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <ErrorMessage message={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Logging in…' : 'Log in'}
        </button>
      </form>
    </section>
  );
}

function loginMessage(error: unknown): string {
  if (error instanceof ApiError && error.status === 401) return 'Wrong email or password.';
  if (error instanceof ApiError && error.status === 429) {
    return `Too many login attempts. Try again in ${waitText(error.retryAfter)}.`;
  }
  if (error instanceof ApiError && error.status === 400) return 'Enter your email and password.';
  return messageOf(error);
}
