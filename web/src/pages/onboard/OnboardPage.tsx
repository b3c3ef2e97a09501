import { useQuery, useMutation } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useConnection, useSignMessage } from 'wagmi';
import { PublicShell, StatePanel } from '../../components/PublicShell';
import { Alert, Button, ChainName, Field, Mono, Spinner } from '../../components/ui';
import { api, ApiError } from '../../lib/api';
import { formatDate, relativeTime } from '../../lib/format';
import { useTitle } from '../../lib/router';
import { type Merchant, type PublicInvitation } from '../../lib/types';
import { ConnectedAccount, ConnectWallet } from '../../wallet/ConnectWallet';
import { walletErrorMessage } from '../../wallet/errors';
import { Stepper } from './Stepper';

type Done = { merchant: Merchant };
const TERMINAL = ['invitation_used', 'invitation_expired', 'not_found'];

/**
 * /onboard/<token>: a merchant binds their own wallet to a platform's invitation in three steps — connect
 * a wallet, choose a display name, sign the exact ownership message the service returns for that wallet.
 */
export function OnboardPage({ token }: { token: string }) {
  useTitle('Merchant onboarding');
  const invitation = useQuery({
    queryKey: ['invitation', token],
    queryFn: () => api.get<PublicInvitation>(`/v1/merchants/invitations/${encodeURIComponent(token)}`),
    retry: (n, err) => !(err instanceof ApiError && err.status < 500) && n < 2,
  });
  const [done, setDone] = useState<Done | null>(null);
  const [terminal, setTerminal] = useState<ApiError | null>(null);

  if (invitation.isPending) {
    return (
      <PublicShell promise="onboard">
        <div className="panel panel-loading" aria-busy="true">
          <Spinner label="Loading invitation" />
          <p className="muted">Loading your invitation…</p>
        </div>
      </PublicShell>
    );
  }
  const failure = terminal ?? (invitation.error instanceof ApiError ? invitation.error : null);
  const stateCode = failure?.code ?? (invitation.data?.state === 'expired' ? 'invitation_expired' : invitation.data?.state === 'completed' && !done ? 'invitation_used' : null);
  if (stateCode || invitation.isError) return <InvitationProblem code={stateCode ?? 'unknown'} message={failure?.message ?? (invitation.error ? String(invitation.error.message) : '')} retry={() => invitation.refetch()} />;
  const inv = invitation.data!;
  if (done) return <OnboardDone inv={inv} merchant={done.merchant} />;
  return (
    <PublicShell promise="onboard" context={<>Invitation from <strong>{inv.platform_name}</strong></>}>
      <OnboardSteps inv={inv} token={token} onDone={setDone} onTerminal={setTerminal} />
    </PublicShell>
  );
}

function OnboardSteps({ inv, token, onDone, onTerminal }: { inv: PublicInvitation; token: string; onDone: (d: Done) => void; onTerminal: (e: ApiError) => void }) {
  const { address, isConnected } = useConnection();
  const [name, setName] = useState(inv.suggested_name);
  const [nameConfirmed, setNameConfirmed] = useState(false);
  const [nameError, setNameError] = useState<string | null>(null);
  const step = !isConnected ? 1 : !nameConfirmed ? 2 : 3;

  const confirmName = (e: FormEvent) => {
    e.preventDefault();
    const trimmed = name.trim();
    if (trimmed.length < 2) return setNameError('Enter the name buyers will see (at least 2 characters).');
    if (trimmed.length > 100) return setNameError('Keep the name under 100 characters.');
    setNameError(null);
    setName(trimmed);
    setNameConfirmed(true);
  };

  return (
    <div className="panel">
      <div className="panel-head">
        <p className="eyebrow">Merchant onboarding</p>
        <h1>Get paid by {inv.platform_name}</h1>
        <p className="muted">
          {inv.platform_name} invited you to receive USDC payments on <ChainName chainId={inv.chain_id} /> as <Mono>{inv.external_id}</Mono>.
          Payments go straight to your wallet; nobody else holds your funds.
        </p>
      </div>
      <Stepper steps={['Connect wallet', 'Display name', 'Sign']} current={step} />

      <section className={`step${step === 1 ? ' step-active' : ' step-done'}`} aria-labelledby="step1">
        <h2 id="step1" className="step-title">1. Connect the wallet that will receive payments</h2>
        {isConnected ? <ConnectedAccount /> : <ConnectWallet intro="Use a wallet you control: an everyday wallet, or a smart wallet such as a Safe or a Coinbase Smart Wallet (even one not yet deployed). You will sign a message, which costs nothing." />}
      </section>

      <section className={`step${step === 2 ? ' step-active' : step > 2 ? ' step-done' : ' step-todo'}`} aria-labelledby="step2">
        <h2 id="step2" className="step-title">2. Choose your display name</h2>
        {step === 2 && (
          <form onSubmit={confirmName} noValidate>
            <Field label="Display name" name="display_name" value={name} onChange={(e) => setName(e.target.value)} error={nameError} hint="Buyers see this name on the checkout page." maxLength={100} autoComplete="organization" />
            <Button type="submit" variant="primary">Continue</Button>
          </form>
        )}
        {step > 2 && (
          <p className="step-summary">
            <strong>{name}</strong>{' '}
            <button type="button" className="link-btn" onClick={() => setNameConfirmed(false)}>Change</button>
          </p>
        )}
      </section>

      <section className={`step${step === 3 ? ' step-active' : ' step-todo'}`} aria-labelledby="step3">
        <h2 id="step3" className="step-title">3. Sign to prove you own this wallet</h2>
        {step === 3 && address && <SignStep token={token} wallet={address} name={name} onDone={onDone} onTerminal={onTerminal} />}
      </section>
      <p className="fine-print">This invitation expires {relativeTime(inv.expires_at)} ({formatDate(inv.expires_at)}).</p>
    </div>
  );
}

function SignStep({ token, wallet, name, onDone, onTerminal }: { token: string; wallet: string; name: string; onDone: (d: Done) => void; onTerminal: (e: ApiError) => void }) {
  const message = useQuery({
    queryKey: ['invitation', token, wallet],
    queryFn: () => api.get<PublicInvitation>(`/v1/merchants/invitations/${encodeURIComponent(token)}`, { wallet }),
  });
  const sign = useSignMessage();
  const complete = useMutation({
    mutationFn: (signature: string) => api.post<Done>(`/v1/merchants/invitations/${encodeURIComponent(token)}/complete`, { wallet, name, signature }),
  });
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setError(null), [wallet]);
  const terminal = message.error instanceof ApiError && TERMINAL.includes(message.error.code) ? message.error : null;
  useEffect(() => {
    if (terminal) onTerminal(terminal);
  }, [terminal, onTerminal]);

  const run = async () => {
    setError(null);
    const text = message.data?.message;
    if (!text) return;
    let signature: string;
    try {
      signature = await sign.mutateAsync({ message: text });
    } catch (err) {
      return setError(walletErrorMessage(err));
    }
    try {
      onDone(await complete.mutateAsync(signature));
    } catch (err) {
      if (err instanceof ApiError && TERMINAL.includes(err.code)) return onTerminal(err);
      if (err instanceof ApiError && err.code === 'invalid_signature') {
        return setError('The signature did not match this wallet. Make sure the wallet that signs is the one connected above, then try again.');
      }
      setError(err instanceof Error ? err.message : 'Could not finish onboarding.');
    }
  };

  if (message.isPending) return <div className="message-box message-loading" aria-busy="true"><Spinner /> Preparing the message…</div>;
  if (message.isError) {
    if (terminal) return null;
    return <Alert tone="error" title="Could not prepare the message">{message.error.message} <button type="button" className="link-btn" onClick={() => message.refetch()}>Retry</button></Alert>;
  }
  const busy = sign.isPending || complete.isPending;
  return (
    <div>
      <p className="muted">Your wallet will ask you to sign this exact text. Signing is free and does not move any funds.</p>
      <pre className="message-box" aria-label="Message to sign">{message.data.message}</pre>
      <Button variant="primary" size="lg" block loading={busy} onClick={run}>
        {sign.isPending ? 'Waiting for your wallet…' : complete.isPending ? 'Finishing…' : 'Sign and finish'}
      </Button>
      <div className="slot">{error && <Alert tone="error">{error}</Alert>}</div>
    </div>
  );
}

function OnboardDone({ inv, merchant }: { inv: PublicInvitation; merchant: Merchant }) {
  useTitle('You are all set');
  return (
    <PublicShell promise="onboard" context={<>Invitation from <strong>{inv.platform_name}</strong></>}>
      <StatePanel icon="check" title="You're all set">
        <p>
          <strong>{merchant.name}</strong> can now receive payments through {inv.platform_name}.
        </p>
        <dl className="done-facts">
          <div><dt>Payout wallet</dt><dd className="mono">{merchant.merchant_wallet}</dd></div>
          <div><dt>Merchant ID</dt><dd className="mono">{merchant.external_id}</dd></div>
          <div><dt>Network</dt><dd><ChainName chainId={merchant.chain_id} /></dd></div>
        </dl>
        <p className="muted">You can close this page. {inv.platform_name} has been told that onboarding is complete.</p>
      </StatePanel>
    </PublicShell>
  );
}

function InvitationProblem({ code, message, retry }: { code: string; message: string; retry: () => void }) {
  useTitle('Invitation');
  if (code === 'invitation_expired') {
    return (
      <PublicShell promise="onboard">
        <StatePanel icon="clock" title="This invitation has expired">
          <p>Invitation links are valid for a limited time. Ask the platform that invited you to send a new link.</p>
        </StatePanel>
      </PublicShell>
    );
  }
  if (code === 'invitation_used') {
    return (
      <PublicShell promise="onboard">
        <StatePanel icon="lock" title="This invitation has already been used">
          <p>Each invitation link works once, and this one already connected a wallet. If that was not you, contact the platform that invited you.</p>
        </StatePanel>
      </PublicShell>
    );
  }
  if (code === 'not_found') {
    return (
      <PublicShell promise="onboard">
        <StatePanel icon="search" title="Invitation not found">
          <p>We could not find this invitation. Check that you opened the complete link, exactly as you received it.</p>
        </StatePanel>
      </PublicShell>
    );
  }
  return (
    <PublicShell promise="onboard">
      <StatePanel icon="warning" title="We could not load this invitation" actions={<Button onClick={retry}>Try again</Button>}>
        <p>{message || 'Something went wrong.'}</p>
      </StatePanel>
    </PublicShell>
  );
}
