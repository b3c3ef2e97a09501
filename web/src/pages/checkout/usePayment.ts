import { useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { createPublicClient, http, type Address, type Chain, type Hex, type PublicClient } from 'viem';
import { useConfig } from 'wagmi';
import { switchChain } from 'wagmi/actions';
import type { CheckoutSession } from '../../lib/types';
import { erc20Abi } from '../../wallet/abi';
import { walletErrorMessage } from '../../wallet/errors';
import { approveRouter } from './flows/approve';
import { FlowFailed, type FlowContext, type Method } from './flows/context';
import { failureMessage, isFinal, withNext } from './flows/fallthrough';
import { relayFailed } from './flows/gasless';
import { useMethods } from './flows/methods';
import { runFlow } from './flows/run';
import { toPayOrderStruct } from './order';
import type { Progress } from './progress';
import { useFollowPayment } from './useFollowPayment';

const storageKey = (token: string) => `trisettle.checkout.${token}`;

/**
 * The buyer's payment. Picks the best method this wallet and the service allow (gasless, batched, permit,
 * approve + pay: flows/*), runs it, and on a failure another method could fix moves to the next one with a
 * sentence saying why. Then follows the transaction (or the service's relay, via the polled session) to the
 * required depth; the service's own view has the last word on "confirmed".
 */
export function usePayment(session: CheckoutSession, chain: Chain, account: Address | undefined, sessionToken: string) {
  const config = useConfig();
  const order = session.order;
  const struct = useMemo(() => toPayOrderStruct(order.eip712), [order.eip712]);
  const token = order.token_address as Address;
  const router = order.pay_to as Address;
  const client = useMemo(() => createPublicClient({ chain, transport: http(chain.rpcUrls.default.http[0]) }) as PublicClient, [chain]);
  const [progress, setProgress] = useState<Progress>(() => restore(sessionToken, session));
  const set = useCallback((p: Partial<Progress>) => setProgress((prev) => ({ ...prev, ...p })), []);
  const [failed, setFailed] = useState<Method[]>([]);

  const funds = useFunds(client, token, router, account);
  const amount = struct.amount;
  const needsApproval = funds.data ? funds.data.allowance < amount : true;
  const insufficient = funds.data ? funds.data.balance < amount : false;
  const { methods, ready } = useMethods(session, config, client, account, !needsApproval);
  const remaining = methods.filter((m) => !failed.includes(m));
  const method: Method = remaining[0] ?? 'approve';

  useEffect(() => {
    if (progress.payHash) sessionStorage.setItem(storageKey(sessionToken), progress.payHash);
  }, [progress.payHash, sessionToken]);

  /** A failure: the next method when another could succeed, else the message alone. */
  const fail = useCallback(
    (from: Method, err: unknown) => {
      const message = failureMessage(err);
      if (isFinal(err) || from === 'approve') return set({ phase: 'idle', payHash: null, relayId: null, error: message });
      setFailed((f) => (f.includes(from) ? f : [...f, from]));
      set({ phase: 'idle', payHash: null, relayId: null, error: withNext(message, remaining.find((m) => m !== from)) });
    },
    [remaining, set],
  );

  useFollowPayment({ session, client, progress, setProgress, onRelayFailed: (msg) => fail('gasless', new FlowFailed(msg)), relayFailed });

  const context = (): FlowContext => ({ config, client, chain, account: account!, token, router, amount, order: struct, orderSignature: order.signature as Hex, sessionToken, onStep: (phase) => set({ phase }) });

  const run = async (m: Method) => {
    if (!account) return;
    set({ error: null });
    try {
      const result = await runFlow(m, context(), session);
      if (result.kind === 'tx') set({ phase: 'submitted', payHash: result.hash, confirmations: 0 });
      else set({ phase: 'submitted', relayId: result.relay.id, payHash: (result.relay.tx_hash as Hex | null) ?? null, confirmations: 0 });
    } catch (err) {
      fail(m, err);
    }
  };

  const approve = async () => {
    if (!account) return;
    set({ error: null });
    const err = await approveRouter(context()).then(() => funds.refetch()).then(() => null, (e: unknown) => e);
    set({ phase: 'idle', error: err ? walletErrorMessage(err) : null });
  };

  const switchNetwork = async () => {
    set({ phase: 'switching', error: null });
    const err = await switchChain(config, { chainId: chain.id, addEthereumChainParameter: { rpcUrls: [...chain.rpcUrls.default.http], chainName: session.chain.name } }).then(() => null, (e: unknown) => e);
    set({ phase: 'idle', error: err ? walletErrorMessage(err) : null });
  };

  /** "Pay another way": the buyer skips the current method. */
  const skip = () => {
    setFailed((f) => [...f, method]);
    set({ error: null });
  };

  return { progress, funds, amount, needsApproval, insufficient, method, next: remaining[1], methodsReady: ready, switchNetwork, approve, pay: () => run(method), skip };
}

/** The buyer's USDC balance and allowance to the router, on the session's RPC, refreshed every 5 s. */
function useFunds(client: PublicClient, token: Address, router: Address, account: Address | undefined) {
  return useQuery({
    queryKey: ['funds', client.chain?.id, token, router, account],
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
}

/** After a reload: the transaction this tab sent, or the relay the service is sending for this order. */
function restore(token: string, session: CheckoutSession): Progress {
  const hash = typeof sessionStorage !== 'undefined' ? (sessionStorage.getItem(storageKey(token)) as Hex | null) : null;
  const relay = session.gasless?.relay;
  const relaying = relay && !relayFailed(relay) ? relay : null;
  const payHash = hash ?? ((relaying?.tx_hash as Hex | null | undefined) ?? null);
  return { phase: payHash || relaying ? 'submitted' : 'idle', payHash, relayId: relaying?.id ?? null, confirmations: 0, error: null };
}
