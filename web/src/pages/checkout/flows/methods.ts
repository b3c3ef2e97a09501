import { useQuery } from '@tanstack/react-query';
import type { Address, PublicClient } from 'viem';
import { useConnection, type Config } from 'wagmi';
import { getCapabilities } from 'wagmi/actions';
import type { CheckoutSession } from '../../../lib/types';
import { METHOD_ORDER, type Method } from './context';

/** EIP-5792: the wallet can execute a batch atomically on this chain (v2 `atomic`, or the older `atomicBatch`). */
async function supportsAtomicBatch(config: Config, account: Address, chainId: number): Promise<boolean> {
  try {
    const caps = (await getCapabilities(config, { account, chainId })) as Record<string, { status?: string; supported?: boolean } | undefined>;
    return ['supported', 'ready'].includes(caps.atomic?.status ?? '') || caps.atomicBatch?.supported === true;
  } catch {
    return false; // 4200 / method not found: a wallet without EIP-5792
  }
}

/**
 * The methods this buyer can use, best first: gasless when the service offers it, batched when the wallet
 * batches atomically, permit for an EOA (a contract wallet cannot give the router v/r/s), approve + pay
 * always. An allowance that already covers the amount makes approve + pay a single payOrder, better than
 * a batch or a permit.
 */
export function useMethods(session: CheckoutSession, config: Config, client: PublicClient, account: Address | undefined, allowanceCovers: boolean) {
  // The wallet's own chain is in the key: a wallet asked about batching while on another chain is asked again.
  const { chainId: walletChain } = useConnection();
  const probe = useQuery({
    queryKey: ['pay-methods', session.chain.chain_id, account, walletChain],
    enabled: Boolean(account),
    staleTime: Infinity,
    queryFn: async () => {
      const [code, atomic] = await Promise.all([client.getCode({ address: account! }).catch(() => undefined), supportsAtomicBatch(config, account!, session.chain.chain_id)]);
      return { contract: Boolean(code && code !== '0x'), atomic };
    },
  });
  const gasless = Boolean(session.gasless?.enabled && session.gasless.typed_data);
  const has: Record<Method, boolean> = {
    gasless,
    batched: Boolean(probe.data?.atomic) && !allowanceCovers,
    permit: probe.data ? !probe.data.contract && !allowanceCovers : false,
    approve: true,
  };
  return { methods: METHOD_ORDER.filter((m) => has[m]), ready: !account || !probe.isPending };
}
