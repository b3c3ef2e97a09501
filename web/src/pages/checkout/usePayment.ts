import { useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { createPublicClient, http, parseSignature, type Address, type Chain, type Hex, type PublicClient } from 'viem';
import { useConfig } from 'wagmi';
import { signTypedData, switchChain, writeContract } from 'wagmi/actions';
import type { CheckoutSession } from '../../lib/types';
import { erc20Abi, paymentRouterAbi } from '../../wallet/abi';
import { walletErrorMessage } from '../../wallet/errors';
import { toPayOrderStruct } from './order';

export type Phase =
  | 'idle'
  | 'switching'
  | 'approving'
  | 'approve_pending'
  | 'permit_signing'
  | 'paying'
  | 'submitted'
  | 'confirming'
  | 'confirmed'
  | 'reverted';

export type Progress = { phase: Phase; payHash: Hex | null; approveHash: Hex | null; confirmations: number; error: string | null };

const storageKey = (token: string) => `trisettle.checkout.${token}`;

/**
 * The buyer's payment: reads balance and allowance with a public client on the session's RPC, approves
 * only when the allowance is short, then calls payOrder (or payOrderWithPermit) with the service-signed
 * message, and follows the transaction to the required confirmation depth. The service's own view (the
 * polled session) has the last word on "confirmed".
 */
export function usePayment(session: CheckoutSession, chain: Chain, account: Address | undefined, sessionToken: string) {
  const config = useConfig();
  const order = session.order;
  const amount = useMemo(() => toPayOrderStruct(order.eip712).amount, [order.eip712]);
  const token = order.token_address as Address;
  const router = order.pay_to as Address;
  const client = useMemo(() => createPublicClient({ chain, transport: http(chain.rpcUrls.default.http[0]) }) as PublicClient, [chain]);
  const [progress, setProgress] = useState<Progress>(() => restore(sessionToken));
  const set = useCallback((p: Partial<Progress>) => setProgress((prev) => ({ ...prev, ...p })), []);

  const funds = useQuery({
    queryKey: ['funds', chain.id, token, router, account],
    enabled: Boolean(account),
    queryFn: async () => {
      const [balance, allowance] = await Promise.all([
        client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [account!] }),
        client.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [account!, router] }),
      ]);
      return { balance, allowance };
    },
    refetchInterval: 5_000,
  });

  useEffect(() => {
    if (progress.payHash) sessionStorage.setItem(storageKey(sessionToken), progress.payHash);
  }, [progress.payHash, sessionToken]);

  const serverConfirmed = session.state === 'completed' || order.state === 'confirmed';
  useEffect(() => {
    if (serverConfirmed && progress.phase !== 'confirmed') set({ phase: 'confirmed', error: null, confirmations: Math.max(progress.confirmations, session.chain.confirmations_required) });
  }, [serverConfirmed, progress.phase, progress.confirmations, session.chain.confirmations_required, set]);

  // Follow the payment to the required depth once it is in a block.
  const following = useRef<Hex | null>(null);
  useEffect(() => {
    const hash = progress.payHash;
    if (!hash || following.current === hash || serverConfirmed) return;
    following.current = hash;
    let stopped = false;
    (async () => {
      try {
        const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 1_000, timeout: 15 * 60_000 });
        if (stopped) return;
        if (receipt.status !== 'success') return set({ phase: 'reverted', error: 'The payment transaction failed on-chain. No USDC left your wallet; you can try again.' });
        const needed = session.chain.confirmations_required;
        for (;;) {
          const head = await client.getBlockNumber({ cacheTime: 0 });
          const n = Number(head - receipt.blockNumber + 1n);
          if (stopped) return;
          setProgress((prev) => (prev.phase === 'confirmed' ? prev : { ...prev, phase: 'confirming', confirmations: Math.min(n, needed) }));
          if (n >= needed) return;
          await new Promise((r) => setTimeout(r, 1_000));
        }
      } catch (err) {
        if (!stopped) set({ error: walletErrorMessage(err) });
      }
    })();
    return () => {
      stopped = true;
      following.current = null;
    };
  }, [progress.payHash, client, serverConfirmed, session.chain.confirmations_required, set]);

  const needsApproval = funds.data ? funds.data.allowance < amount : true;
  const insufficient = funds.data ? funds.data.balance < amount : false;

  const switchNetwork = async () => {
    set({ phase: 'switching', error: null });
    try {
      await switchChain(config, { chainId: chain.id, addEthereumChainParameter: { rpcUrls: [...chain.rpcUrls.default.http], chainName: session.chain.name } });
      set({ phase: 'idle' });
    } catch (err) {
      set({ phase: 'idle', error: walletErrorMessage(err) });
    }
  };

  const approve = async () => {
    if (!account) return;
    set({ phase: 'approving', error: null });
    try {
      const hash = await writeContract(config, { address: token, abi: erc20Abi, functionName: 'approve', args: [router, amount], chainId: chain.id, account });
      set({ phase: 'approve_pending', approveHash: hash });
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 1_000 });
      if (receipt.status !== 'success') throw new Error('The approval transaction failed on-chain.');
      await funds.refetch();
      set({ phase: 'idle' });
    } catch (err) {
      set({ phase: 'idle', error: walletErrorMessage(err) });
    }
  };

  const pay = async () => {
    if (!account) return;
    set({ phase: 'paying', error: null });
    try {
      const struct = toPayOrderStruct(order.eip712);
      const signature = order.signature as Hex;
      // Simulate first: a revert (expired, wrong payer, already paid) becomes words before the wallet opens.
      await client.simulateContract({ account, address: router, abi: paymentRouterAbi, functionName: 'payOrder', args: [struct, signature] });
      const hash = await writeContract(config, { address: router, abi: paymentRouterAbi, functionName: 'payOrder', args: [struct, signature], chainId: chain.id, account });
      set({ phase: 'submitted', payHash: hash, confirmations: 0 });
    } catch (err) {
      set({ phase: 'idle', error: walletErrorMessage(err) });
    }
  };

  /** One transaction: an EIP-2612 permit signature instead of the approve transaction. */
  const payWithPermit = async () => {
    if (!account) return;
    set({ phase: 'permit_signing', error: null });
    try {
      const [name, version, nonce] = await Promise.all([
        client.readContract({ address: token, abi: erc20Abi, functionName: 'name' }),
        client.readContract({ address: token, abi: erc20Abi, functionName: 'version' }).catch(() => '1'),
        client.readContract({ address: token, abi: erc20Abi, functionName: 'nonces', args: [account] }),
      ]);
      const struct = toPayOrderStruct(order.eip712);
      const permitDeadline = struct.deadline;
      const permit = await signTypedData(config, {
        account,
        domain: { name, version, chainId: chain.id, verifyingContract: token },
        types: { Permit: [{ name: 'owner', type: 'address' }, { name: 'spender', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'nonce', type: 'uint256' }, { name: 'deadline', type: 'uint256' }] },
        primaryType: 'Permit',
        message: { owner: account, spender: router, value: amount, nonce, deadline: permitDeadline },
      });
      const { r, s, v, yParity } = parseSignature(permit);
      const vByte = Number(v ?? BigInt(yParity + 27));
      set({ phase: 'paying' });
      const args = [struct, order.signature as Hex, permitDeadline, vByte, r, s] as const;
      await client.simulateContract({ account, address: router, abi: paymentRouterAbi, functionName: 'payOrderWithPermit', args });
      const hash = await writeContract(config, { address: router, abi: paymentRouterAbi, functionName: 'payOrderWithPermit', args, chainId: chain.id, account });
      set({ phase: 'submitted', payHash: hash, confirmations: 0 });
    } catch (err) {
      set({ phase: 'idle', error: walletErrorMessage(err) });
    }
  };

  return { progress, funds, amount, needsApproval, insufficient, switchNetwork, approve, pay, payWithPermit, clearError: () => set({ error: null }) };
}

function restore(token: string): Progress {
  const hash = typeof sessionStorage !== 'undefined' ? (sessionStorage.getItem(storageKey(token)) as Hex | null) : null;
  return { phase: hash ? 'submitted' : 'idle', payHash: hash, approveHash: null, confirmations: 0, error: null };
}
