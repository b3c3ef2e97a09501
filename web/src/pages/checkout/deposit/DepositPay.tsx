import { useQueryClient } from '@tanstack/react-query';
import type { CheckoutSession } from '../../../lib/types';
import { depositOf } from './deposit';
import { DepositDetails } from './DepositDetails';
import { RefundAddressForm } from './RefundAddressForm';

/**
 * "Pay from an exchange or any wallet": the refund address first, then the order's deposit address and the
 * amount still due, followed live through the session the checkout page polls.
 */
export function DepositPay({ session, sessionToken }: { session: CheckoutSession; sessionToken: string }) {
  const queryClient = useQueryClient();
  const deposit = depositOf(session);
  if (!deposit) return null;
  if (!deposit.depositAddress) {
    // The POST answers with the public session: it replaces the polled one at once.
    return <RefundAddressForm sessionToken={sessionToken} onSet={(next) => queryClient.setQueryData(['checkout', sessionToken], next)} />;
  }
  return <DepositDetails session={session} deposit={deposit} address={deposit.depositAddress} />;
}
