import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { isAddressEqual, type Address } from 'viem';
import { useConfig, useConnection } from 'wagmi';
import { switchChain } from 'wagmi/actions';
import { Alert, Button } from '../../components/ui';
import { formatAmount } from '../../lib/amount';
import type { SubscriptionAuthorization } from '../../lib/types';
import { walletErrorMessage } from '../../wallet/errors';
import { allowancePlan, approveMore, readAllowance } from './allowance';
import { useChainClient } from './useSubscribe';

const units = (v: bigint) => formatAmount(v, 6);

/**
 * How many more charges the payer's token allowance covers, and "Allow N more charges" (approve from the payer's
 * wallet) when it runs short: without it an open-ended subscription would fail for allowance after a year.
 */
export function AllowanceSection({ auth }: { auth: SubscriptionAuthorization }) {
  const a = auth.authorized!;
  const payer = (a.payer ?? a.permission.payer) as Address;
  const config = useConfig();
  const { address, chainId, isConnected } = useConnection();
  const { chain, client } = useChainClient(auth);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const allowance = useQuery({
    queryKey: ['subscription-allowance-left', auth.id, payer],
    queryFn: () => readAllowance(client, auth.token.address as Address, payer, auth.manager_address as Address),
  });
  if (allowance.data === undefined) return null;
  const amount = BigInt(a.permission.amount);
  const plan = allowancePlan(amount, allowance.data, auth.max_periods, a.periods_charged);
  const more = plan.target === null ? 0n : plan.target / amount;
  const top = async () => {
    setError(null);
    setBusy(true);
    try {
      if (chainId !== chain.id) await switchChain(config, { chainId: chain.id });
      await approveMore(config, client, chain.id, auth.token.address as Address, auth.manager_address as Address, address!, plan.target!);
      await allowance.refetch();
    } catch (err) {
      setError(walletErrorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  const isPayer = isConnected && address !== undefined && isAddressEqual(address, payer);
  return (
    <section aria-labelledby="allowance-title" className="sub-allowance">
      <h2 id="allowance-title">Allowance</h2>
      <p data-testid="allowance-covers">
        Your wallet allows {units(allowance.data)} {auth.token.symbol}: {plan.covers === 1n ? '1 more charge' : `${plan.covers} more charges`}
        {plan.left !== null ? ` of the ${plan.left} left` : ''}.
      </p>
      {plan.low && <Alert tone="warning" title="Running low">When the allowance is used up, charges fail and the subscription is canceled. Allow more to keep it going.</Alert>}
      {plan.target !== null && isPayer && (
        <Button variant="secondary" loading={busy} onClick={top}>{busy ? 'Confirm in your wallet…' : `Allow ${more} more charges (${units(plan.target)} ${auth.token.symbol})`}</Button>
      )}
      {plan.target !== null && !isPayer && <p className="muted">Connect the paying wallet below to allow more.</p>}
      <div className="slot" data-testid="allowance-error">{error && <Alert tone="error">{error}</Alert>}</div>
    </section>
  );
}
