import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { createPublicClient, custom, type Address, type EIP1193Provider, type Hex, type PublicClient } from 'viem';
import { useConfig, useConnection } from 'wagmi';
import { switchChain, writeContract } from 'wagmi/actions';
import type { Refund } from '../../../lib/types';
import { erc20Abi } from '../../../wallet/abi';
import { walletErrorMessage } from '../../../wallet/errors';
import { refundRouterAbi, toRefundStruct } from './refund-abi';

export type FundPhase = 'idle' | 'switching' | 'approving' | 'approve_pending' | 'refunding' | 'refund_pending' | 'mined' | 'failed';
export type FundProgress = { phase: FundPhase; approveHash: Hex | null; refundHash: Hex | null; error: string | null };

/**
 * Pays a `requires_funding` refund from the connected wallet: approve `funding_required` to the router when
 * the allowance is short, then refund(eip712.message, signature). Reads go through the wallet's own provider
 * (the dashboard knows no RPC URL); the service's view of the refund, polled by the page, has the last word.
 */
export function useFundRefund(refund: Refund, tokenAddress: Address) {
  const config = useConfig();
  const { address, chainId: walletChain, connector } = useConnection();
  const qc = useQueryClient();
  const chainId = refund.eip712!.domain.chainId;
  const router = refund.pay_to as Address;
  const need = BigInt(refund.funding_required ?? '0');
  const [progress, setProgress] = useState<FundProgress>({ phase: 'idle', approveHash: null, refundHash: null, error: null });
  const set = useCallback((p: Partial<FundProgress>) => setProgress((prev) => ({ ...prev, ...p })), []);

  const client = useCallback(async (): Promise<PublicClient> => {
    const provider = (await connector!.getProvider({ chainId })) as EIP1193Provider;
    return createPublicClient({ transport: custom(provider), pollingInterval: 1_000 }) as PublicClient;
  }, [connector, chainId]);

  const readFunds = useCallback(async () => {
    const c = await client();
    const [balance, allowance] = await Promise.all([
      c.readContract({ address: tokenAddress, abi: erc20Abi, functionName: 'balanceOf', args: [address!] }),
      c.readContract({ address: tokenAddress, abi: erc20Abi, functionName: 'allowance', args: [address!, router] }),
    ]);
    return { balance, allowance };
  }, [client, tokenAddress, address, router]);

  const pay = async () => {
    if (!address || !connector) return;
    set({ error: null });
    try {
      if (walletChain !== chainId) {
        set({ phase: 'switching' });
        await switchChain(config, { chainId });
      }
      const c = await client();
      const funds = await readFunds();
      if (funds.balance < need) throw new Error(`This wallet holds less USDC than the ${need} base units the refund needs from it.`);
      if (funds.allowance < need) {
        set({ phase: 'approving' });
        const approveHash = await writeContract(config, { address: tokenAddress, abi: erc20Abi, functionName: 'approve', args: [router, need], chainId, account: address });
        set({ phase: 'approve_pending', approveHash });
        const r = await c.waitForTransactionReceipt({ hash: approveHash });
        if (r.status !== 'success') throw new Error('The approval transaction failed on chain.');
      }
      set({ phase: 'refunding' });
      const refundHash = await writeContract(config, {
        address: router, abi: refundRouterAbi, functionName: 'refund',
        args: [toRefundStruct(refund.eip712!.message), refund.signature as Hex], chainId, account: address,
      });
      set({ phase: 'refund_pending', refundHash });
      const receipt = await c.waitForTransactionReceipt({ hash: refundHash });
      if (receipt.status !== 'success') throw new Error('The refund transaction failed on chain; no USDC left your wallet.');
      set({ phase: 'mined' });
      await qc.invalidateQueries({ queryKey: ['refunds'] });
    } catch (err) {
      set({ phase: 'failed', error: walletErrorMessage(err) });
    }
  };

  return { progress, pay, address, need, wrongChain: Boolean(address && walletChain !== chainId) };
}
