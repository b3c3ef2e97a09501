import { useState, type FormEvent } from 'react';
import type { CheckoutSession } from '../../../lib/types';
import { useConnection } from 'wagmi';
import { Button, Field } from '../../../components/ui';
import { errorMessage } from '../../../lib/api';
import { shortHex } from '../../../lib/format';
import { checkRefundAddress, setRefundAddress } from './deposit';

/**
 * Step 1 of a plain-transfer payment: where any return goes. The deposit address is derived from it, so it is
 * asked first and set once (the service answers 409 to a different one later).
 */
export function RefundAddressForm({ sessionToken, onSet }: { sessionToken: string; onSet: (session: CheckoutSession) => void }) {
  const { address: connected } = useConnection();
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const checked = checkRefundAddress(value);
    if ('error' in checked) return setError(checked.error);
    setError(null);
    setBusy(true);
    try {
      onSet(await setRefundAddress(sessionToken, checked.address));
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="refund-form" onSubmit={submit} noValidate>
      <p className="muted">
        First, the refund address: where any return goes (a payment short of the amount when the deadline passes, the
        excess of an over-payment, a payment that arrives late). Use an address you control, not an exchange&apos;s deposit address.
      </p>
      <Field
        label="Refund address"
        name="refund_address"
        className="mono-input"
        placeholder="0x…"
        autoComplete="off"
        spellCheck={false}
        value={value}
        onChange={(e) => setValue(e.target.value)}
        error={error}
        hint="An Ethereum address on this network, 0x followed by 40 characters."
      />
      {connected && value.trim().toLowerCase() !== connected.toLowerCase() && (
        <p className="refund-prefill">
          <button type="button" className="link-btn" onClick={() => { setValue(connected); setError(null); }}>
            Use my connected wallet ({shortHex(connected, 6, 4)})
          </button>
        </p>
      )}
      <Button type="submit" variant="primary" size="lg" block loading={busy}>
        Show the deposit address
      </Button>
    </form>
  );
}
