import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Alert, Button, Field, Logo } from '../../../components/ui';
import { api, ApiError } from '../../../lib/api';
import { useTitle } from '../../../lib/router';

/** Sign in / sign up (better-auth email + password). The session is an HttpOnly cookie. */
export function AuthPage() {
  const [mode, setMode] = useState<'sign-in' | 'sign-up'>('sign-in');
  useTitle(mode === 'sign-in' ? 'Sign in' : 'Create your account');
  const qc = useQueryClient();
  const [form, setForm] = useState({ name: '', email: '', password: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const next: Record<string, string> = {};
    if (mode === 'sign-up' && form.name.trim().length < 2) next.name = 'Enter your name.';
    if (!/^\S+@\S+\.\S+$/.test(form.email)) next.email = 'Enter a valid email address.';
    if (mode === 'sign-up' && form.password.length < 10) next.password = 'Use at least 10 characters.';
    if (mode === 'sign-in' && !form.password) next.password = 'Enter your password.';
    setErrors(next);
    if (Object.keys(next).length) return;
    setBusy(true);
    setError(null);
    try {
      if (mode === 'sign-up') await api.post('/api/auth/sign-up/email', { name: form.name.trim(), email: form.email.trim(), password: form.password });
      else await api.post('/api/auth/sign-in/email', { email: form.email.trim(), password: form.password });
      await qc.invalidateQueries({ queryKey: ['auth-session'] });
      await qc.invalidateQueries({ queryKey: ['me'] });
    } catch (err) {
      setError(authMessage(err, mode));
    } finally {
      setBusy(false);
    }
  };

  const switchMode = () => {
    setMode((m) => (m === 'sign-in' ? 'sign-up' : 'sign-in'));
    setErrors({});
    setError(null);
  };

  return (
    <div className="auth">
      <div className="auth-brand">
        <Logo />
        <h1 className="auth-pitch">Split every stablecoin payment between you, your merchants and the network — on-chain, in one transaction.</h1>
        <ul className="auth-points">
          <li>Non-custodial: funds never sit with us</li>
          <li>Hosted checkout and merchant onboarding</li>
          <li>Signed webhooks for every state change</li>
        </ul>
      </div>
      <div className="auth-card-wrap">
        <form className="auth-card" onSubmit={submit} noValidate aria-labelledby="auth-title">
          <h2 id="auth-title">{mode === 'sign-in' ? 'Sign in to your account' : 'Create your Trisettle account'}</h2>
          {mode === 'sign-up' && <Field label="Your name" name="name" autoComplete="name" value={form.name} onChange={set('name')} error={errors.name} />}
          <Field label="Email" name="email" type="email" autoComplete="email" value={form.email} onChange={set('email')} error={errors.email} />
          <Field
            label="Password"
            name="password"
            type="password"
            autoComplete={mode === 'sign-in' ? 'current-password' : 'new-password'}
            value={form.password}
            onChange={set('password')}
            error={errors.password}
            hint={mode === 'sign-up' ? 'At least 10 characters.' : undefined}
          />
          <div className="slot">{error && <Alert tone="error">{error}</Alert>}</div>
          <Button type="submit" variant="primary" size="lg" block loading={busy}>
            {mode === 'sign-in' ? 'Sign in' : 'Create account'}
          </Button>
          <p className="auth-switch">
            {mode === 'sign-in' ? 'New to Trisettle?' : 'Already have an account?'}{' '}
            <button type="button" className="link-btn" onClick={switchMode}>
              {mode === 'sign-in' ? 'Create an account' : 'Sign in'}
            </button>
          </p>
        </form>
      </div>
    </div>
  );
}

function authMessage(err: unknown, mode: string): string {
  if (err instanceof ApiError) {
    if (err.status === 401 || err.code === 'invalid_email_or_password') return 'That email and password do not match an account.';
    if (err.code === 'user_already_exists' || err.code.includes('already_exists')) return 'An account with this email already exists. Sign in instead.';
    if (err.status === 429) return 'Too many attempts. Wait a minute and try again.';
    return err.message;
  }
  return mode === 'sign-in' ? 'Could not sign in.' : 'Could not create the account.';
}
