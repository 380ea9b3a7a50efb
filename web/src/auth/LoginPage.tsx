import { type FormEvent, useEffect, useState } from 'react';
import { errorMessage } from '../api';
import { Alert, Button, Field, Input, LogoMark } from '../components';
import { useSession } from './SessionProvider';
import './login.css';

/** docs/screens.md#error-texts: the login failure texts, in their order of precedence. */
export function loginErrorText(err: unknown): string {
  return errorMessage(err, 'Login failed', 'An error occurred during login.');
}

/** The only screen before sign-in (docs/screens.md#sign-in-and-session). */
export function LoginPage() {
  const { login } = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    document.title = 'Sign in · Pipdesk';
  }, []);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await login(email.trim(), password);
    } catch (err) {
      setError(loginErrorText(err));
      setBusy(false);
    }
  }

  return (
    <main className="login">
      <div className="login__panel">
        <div className="login__brand">
          <LogoMark />
          <span>Pipdesk</span>
        </div>
        <div className="login__card">
          <h1 className="login__title">Trading Platform Login</h1>
          <p className="login__prompt">Please sign in to access your trading account.</p>
          <form className="login__form" onSubmit={onSubmit}>
            {error && <Alert tone="error">{error}</Alert>}
            <Field label="Email address">
              <Input
                type="email"
                name="email"
                autoComplete="username"
                required
                value={email}
                onChange={(e) => setEmail(e.target.value)}
                disabled={busy}
              />
            </Field>
            <Field label="Password">
              <Input
                type="password"
                name="password"
                autoComplete="current-password"
                required
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                disabled={busy}
              />
            </Field>
            <Button type="submit" variant="primary" size="lg" block busy={busy}>
              {busy ? 'Signing in...' : 'Sign in'}
            </Button>
          </form>
        </div>
      </div>
    </main>
  );
}
