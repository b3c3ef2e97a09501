import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { isAddress } from 'viem';
import { Alert, Button, Card, Field, Logo, SecretReveal, Select } from '../../../components/ui';
import { api } from '../../../lib/api';
import { CHAIN_OPTIONS } from '../../../lib/chains';
import { formatBps } from '../../../lib/money';
import { useTitle } from '../../../lib/router';
import type { Onboarded } from '../../../lib/types';
import { paramError, parseBps } from '../shared/forms';
import { useSignOut } from './session';

/** First run of a signed-in account: create its platform, then show the secret key exactly once. */
export function PlatformOnboarding({ email }: { email: string }) {
  useTitle('Set up your platform');
  const qc = useQueryClient();
  const signOut = useSignOut();
  const [form, setForm] = useState({ name: '', platform_wallet: '', chain_id: '84532', platform_fee_bps: '250', default_reserve_bps: '500' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<Onboarded | null>(null);
  const [saved, setSaved] = useState(false);
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const next: Record<string, string> = {};
    if (form.name.trim().length < 2) next.name = 'Enter your platform name.';
    if (!isAddress(form.platform_wallet.trim(), { strict: false })) next.platform_wallet = 'Enter a 0x… wallet address (40 hex characters).';
    const fee = parseBps(form.platform_fee_bps);
    const reserve = parseBps(form.default_reserve_bps);
    if (fee === null) next.platform_fee_bps = 'A whole number of basis points from 0 to 10000.';
    if (reserve === null) next.default_reserve_bps = 'A whole number of basis points from 0 to 10000.';
    setErrors(next);
    if (Object.keys(next).length) return;
    setBusy(true);
    setError(null);
    try {
      const res = await api.post<Onboarded>('/v1/onboarding/self', {
        name: form.name.trim(),
        platform_wallet: form.platform_wallet.trim(),
        chain_id: Number(form.chain_id),
        platform_fee_bps: fee,
        default_reserve_bps: reserve,
      });
      setCreated(res);
    } catch (err) {
      const p = paramError(err, ['name', 'platform_wallet', 'chain_id', 'platform_fee_bps', 'default_reserve_bps']);
      if (p.field) setErrors(p.field);
      else setError(p.general ?? null);
    } finally {
      setBusy(false);
    }
  };

  const finish = async () => {
    await qc.invalidateQueries({ queryKey: ['me'] });
  };

  return (
    <div className="setup">
      <header className="setup-bar">
        <Logo small />
        <span className="muted">{email}</span>
        <Button size="sm" variant="ghost" onClick={signOut}>Sign out</Button>
      </header>
      <main className="setup-main">
        {created ? (
          <Card title="Your platform is ready">
            <p className="muted">
              <strong>{created.name}</strong> is set up. Copy your secret key now and store it in your server&apos;s secrets — it is shown only this once.
            </p>
            <SecretReveal label="Secret key" value={created.secret_key} warning="This key is shown once. Anyone with it can act for your platform: never put it in a browser or an app." />
            <SecretReveal label="Publishable key" value={created.publishable_key} warning="Safe to embed in front-ends. You can see it again under Developers." />
            <div className="check-row">
              <input id="saved-secret" type="checkbox" checked={saved} onChange={(e) => setSaved(e.target.checked)} />
              <label htmlFor="saved-secret">I have stored the secret key somewhere safe</label>
            </div>
            <Button variant="primary" size="lg" disabled={!saved} onClick={finish}>Go to the dashboard</Button>
          </Card>
        ) : (
          <Card title="Set up your platform">
            <p className="muted setup-intro">Tell us where your platform fee goes and how much of each merchant&apos;s payment is held as a reserve by default. You can add merchants next.</p>
            <form onSubmit={submit} noValidate className="form-grid">
              <Field label="Platform name" name="name" value={form.name} onChange={set('name')} error={errors.name} autoComplete="organization" className="span-2" />
              <Field label="Treasury wallet" name="platform_wallet" value={form.platform_wallet} onChange={set('platform_wallet')} error={errors.platform_wallet} hint="Receives your platform fee on every payment." placeholder="0x…" spellCheck={false} className="span-2 mono-input" />
              <Select label="Network" name="chain_id" value={form.chain_id} onChange={set('chain_id')} options={CHAIN_OPTIONS} hint="" error={errors.chain_id} className="span-2" />
              <Field label="Platform fee" name="platform_fee_bps" inputMode="numeric" value={form.platform_fee_bps} onChange={set('platform_fee_bps')} error={errors.platform_fee_bps} suffix="bps" hint={parseBps(form.platform_fee_bps) !== null ? `${formatBps(parseBps(form.platform_fee_bps)!)} of each payment` : 'Basis points: 100 = 1%'} />
              <Field label="Default reserve" name="default_reserve_bps" inputMode="numeric" value={form.default_reserve_bps} onChange={set('default_reserve_bps')} error={errors.default_reserve_bps} suffix="bps" hint={parseBps(form.default_reserve_bps) !== null ? `${formatBps(parseBps(form.default_reserve_bps)!)} of the merchant's share held` : 'Basis points: 100 = 1%'} />
              <div className="span-2 slot">{error && <Alert tone="error">{error}</Alert>}</div>
              <div className="span-2">
                <Button type="submit" variant="primary" size="lg" loading={busy}>Create platform</Button>
              </div>
            </form>
          </Card>
        )}
      </main>
    </div>
  );
}
