import { Button } from '../../components/ui';
import { METHOD_LABEL } from './flows/fallthrough';
import type { Method } from './flows/context';
import type { Phase } from './progress';
import type { usePayment } from './usePayment';

type Pay = ReturnType<typeof usePayment>;

const NOTE: Record<Method, string> = {
  gasless: 'No network fee: you sign once and Trisettle sends the payment for you.',
  batched: 'One confirmation: your wallet approves and pays in a single step.',
  permit: 'Sign a permit, then confirm one transaction.',
  approve: '',
};

function label(phase: Phase, amountText: string, verb: string): string {
  if (phase === 'signing') return 'Sign in your wallet…';
  if (phase === 'confirm_in_wallet') return 'Confirm in your wallet…';
  if (phase === 'relaying') return 'Sending your payment…';
  if (phase === 'batch_pending') return verb === 'Pay' ? 'Paying…' : 'Authorizing…';
  return `${verb} ${amountText}`;
}

/** The pay button for the method in use, and "pay another way" when there is a next one. */
export function PayActions({ pay, amountText, verb = 'Pay', disabled }: { pay: Pay; amountText: string; verb?: 'Pay' | 'Authorize'; disabled: boolean }) {
  const { phase } = pay.progress;
  const loading = ['signing', 'confirm_in_wallet', 'relaying', 'batch_pending', 'approve_pending'].includes(phase);
  const other = pay.next && (
    <button type="button" className="link-btn permit-link" disabled={disabled} onClick={pay.skip}>
      Or {METHOD_LABEL[pay.next]}
    </button>
  );
  if (pay.method === 'approve' && pay.needsApproval) {
    return (
      <div data-method="approve">
        <ol className="pay-steps">
          <li className="pay-step-current"><span>Approve USDC <span className="pay-step-note">lets the payment router take exactly {amountText}, nothing more</span></span></li>
          <li>{verb}</li>
        </ol>
        <Button variant="primary" size="lg" block loading={loading} disabled={disabled} onClick={pay.approve}>
          {phase === 'confirm_in_wallet' ? 'Confirm in your wallet…' : phase === 'approve_pending' ? 'Approving…' : `Approve ${amountText}`}
        </Button>
        {other}
      </div>
    );
  }
  return (
    <div data-method={pay.method}>
      {pay.method === 'approve' ? (
        <ol className="pay-steps">
          <li className="pay-step-done">USDC approved</li>
          <li className="pay-step-current">{verb}</li>
        </ol>
      ) : (
        <p className="pay-method-note muted">{NOTE[pay.method]}</p>
      )}
      <Button variant="primary" size="lg" block loading={loading} disabled={disabled} onClick={pay.pay}>
        {label(phase, amountText, verb)}
      </Button>
      {other}
    </div>
  );
}
