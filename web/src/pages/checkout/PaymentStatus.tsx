import type { Hex } from 'viem';
import { Hash } from '../../components/ui';
import type { Phase } from './progress';

const ORDER: Phase[] = ['submitted', 'confirming', 'confirmed'];

/**
 * The live badge: submitted → confirming n/N → confirmed ("Authorized" for a manual-capture order: the buyer's
 * funds are held, not paid). Its space is reserved so nothing jumps.
 */
export function PaymentStatus({ phase, confirmations, required, hash, explorer, doneLabel = 'Confirmed' }: { phase: Phase; confirmations: number; required: number; hash: Hex | null; explorer: string | null; doneLabel?: 'Confirmed' | 'Authorized' }) {
  const live = ORDER.includes(phase) || phase === 'reverted';
  const index = ORDER.indexOf(phase);
  const waitingForService = phase === 'confirming' && confirmations >= required;
  const label =
    phase === 'confirmed' ? doneLabel
      : phase === 'confirming' ? (waitingForService ? `Confirming ${confirmations}/${required} · finalising` : `Confirming ${confirmations}/${required}`)
        : phase === 'reverted' ? 'Failed'
          : 'Submitted';
  return (
    <div className="pay-status" data-testid="payment-status" data-state={live ? phase : 'idle'} aria-live="polite">
      {live && (
        <>
          <div className={`status-badge status-${phase}`}>
            <span className={`status-dot${phase === 'confirmed' || phase === 'reverted' ? '' : ' pulse'}`} aria-hidden="true" />
            {label}
          </div>
          <ol className="status-track" aria-hidden="true">
            {['Submitted', 'Confirming', doneLabel].map((s, i) => (
              <li key={s} className={phase === 'reverted' ? 'track-todo' : i < index || phase === 'confirmed' ? 'track-done' : i === index ? 'track-current' : 'track-todo'}>
                {s}
              </li>
            ))}
          </ol>
          {hash && (
            <p className="status-hash">
              Transaction{' '}
              <Hash value={hash} head={10} tail={8} href={explorer ? `${explorer.replace(/\/$/, '')}/tx/${hash}` : null} />
            </p>
          )}
        </>
      )}
    </div>
  );
}
