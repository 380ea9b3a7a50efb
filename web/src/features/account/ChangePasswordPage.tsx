import { changePasswordRequestSchema, PASSWORD_MAX, PASSWORD_MIN } from '@pipdesk/contract';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { errorMessage } from '../../api';
import { useSession } from '../../auth/SessionProvider';
import { Alert, Button, Card, Field, Input, LogoMark, Page } from '../../components';
import '../../auth/login.css';
import { changePassword, usePasswordChanged } from './api';
import './account.css';

export const CHANGE_PASSWORD_TITLE = 'Change password';
export const FORCED_PROMPT = 'You signed in with a temporary password. Choose a new password to continue.';
export const CHANGE_PASSWORD_FAILED = 'Failed to change password';
export const PASSWORDS_DIFFER = 'The new passwords do not match';
export const PASSWORD_CHANGED = 'Password changed. Your other sessions were signed out.';

type FieldErrors = Partial<Record<'current_password' | 'new_password' | 'confirm', string>>;

/** The same checks as the server's (the contract's schema), worded per field, plus the confirmation. */
export function checkPasswords(current: string, next: string, confirm: string): FieldErrors {
  const errors: FieldErrors = {};
  const parsed = changePasswordRequestSchema.safeParse({ current_password: current, new_password: next });
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      const key = issue.path[0];
      if ((key === 'current_password' || key === 'new_password') && !errors[key]) errors[key] = `Password ${issue.message}`;
    }
  if (!errors.new_password && next !== confirm) errors.confirm = PASSWORDS_DIFFER;
  return errors;
}

/**
 * The password form. `forced`: the user signed in with a temporary password and nothing else
 * opens until it is changed; success then opens the dashboard.
 */
function ChangePasswordForm({ forced }: { forced: boolean }) {
  const navigate = useNavigate();
  const passwordChanged = usePasswordChanged();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const change = useMutation({
    mutationFn: () => changePassword({ current_password: current, new_password: next }),
    onSuccess: () => {
      setCurrent('');
      setNext('');
      setConfirm('');
      passwordChanged();
      if (forced) navigate('/', { replace: true });
    },
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const found = checkPasswords(current, next, confirm);
    setErrors(found);
    if (Object.keys(found).length === 0) change.mutate();
  };

  return (
    <form className="password-form" aria-label={CHANGE_PASSWORD_TITLE} onSubmit={submit} noValidate>
      {change.isError && <Alert tone="error">{errorMessage(change.error, CHANGE_PASSWORD_FAILED)}</Alert>}
      {change.isSuccess && !forced && <Alert tone="success">{PASSWORD_CHANGED}</Alert>}
      <Field label={forced ? 'Temporary password' : 'Current password'} error={errors.current_password}>
        <Input
          type="password"
          autoComplete="current-password"
          required
          value={current}
          onChange={(e) => setCurrent(e.target.value)}
        />
      </Field>
      <Field
        label="New password"
        hint={`${PASSWORD_MIN} to ${PASSWORD_MAX} characters, not the current one`}
        error={errors.new_password}
      >
        <Input type="password" autoComplete="new-password" required value={next} onChange={(e) => setNext(e.target.value)} />
      </Field>
      <Field label="Confirm new password" error={errors.confirm}>
        <Input
          type="password"
          autoComplete="new-password"
          required
          value={confirm}
          onChange={(e) => setConfirm(e.target.value)}
        />
      </Field>
      <Button type="submit" variant="primary" busy={change.isPending}>
        {change.isPending ? 'Changing...' : CHANGE_PASSWORD_TITLE}
      </Button>
    </form>
  );
}

/** Route `/account/password`, reachable from the header (docs/screens.md#change-password). */
export function ChangePasswordPage() {
  return (
    <Page title={CHANGE_PASSWORD_TITLE}>
      <Card className="password-card">
        <p className="password-card__intro">Changing your password signs out your other sessions, on every device.</p>
        <ChangePasswordForm forced={false} />
      </Card>
    </Page>
  );
}

/**
 * What a user who signed in with a temporary password sees instead of the app, until the
 * password is changed: no header, no data calls (the server refuses them), only the form and Logout.
 */
export function ForcedPasswordChange() {
  const { logout } = useSession();
  useEffect(() => {
    document.title = `${CHANGE_PASSWORD_TITLE} · Pipdesk`;
  }, []);
  return (
    <main className="login">
      <div className="login__panel">
        <div className="login__brand">
          <LogoMark />
          <span>Pipdesk</span>
        </div>
        <div className="login__card">
          <h1 className="login__title">{CHANGE_PASSWORD_TITLE}</h1>
          <p className="login__prompt">{FORCED_PROMPT}</p>
          <ChangePasswordForm forced />
          <Button variant="ghost" block className="password-logout" onClick={() => void logout()}>
            Logout
          </Button>
        </div>
      </div>
    </main>
  );
}
