/**
 * What refunds and settlements read from and send to the PaymentRouter: on-chain reads, the chain clock,
 * and operator transactions. Nothing here touches the database.
 */
import {
  BaseError,
  ContractFunctionRevertedError,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Address,
  type Hex,
  type TransactionReceipt,
} from 'viem';
import { paymentRouterAbi } from '../../chain/artifacts/PaymentRouter.js';
import { makeWalletClient, type ChainWalletClient } from '../../chain/clients.js';
import type { RefundOrderMessage } from '../../chain/eip712.js';
import type { Config } from '../../config.js';
import type { ChainsService } from '../chains/service.js';

/** The router refused the call (simulation or mined transaction); `name` is the custom error, e.g. EnforcedPause. */
export class RouterRevert extends Error {
  constructor(readonly errorName: string, message: string) {
    super(message);
    this.name = 'RouterRevert';
  }
}

export function revertOf(err: unknown): RouterRevert | null {
  if (err instanceof RouterRevert) return err;
  if (!(err instanceof BaseError)) return null;
  const r = err.walk((e) => e instanceof ContractFunctionRevertedError);
  if (!(r instanceof ContractFunctionRevertedError)) return null;
  const name = r.data?.errorName ?? r.reason ?? 'reverted';
  return new RouterRevert(name, `${name}${r.data?.args ? `(${r.data.args.map(String).join(', ')})` : ''}`);
}

export function createRouterClient(config: Config, chains: ChainsService) {
  const wallets = new Map<number, ChainWalletClient>();
  const queues = new Map<number, Promise<unknown>>();
  /** Chain clock minus wall clock, learned whenever a worker reads the latest block (anvil time can be moved). */
  const clockOffsetMs = new Map<number, number>();

  function wallet(chainId: number): ChainWalletClient {
    const account = chains.operator;
    if (!account) throw new Error('OPERATOR_PRIVATE_KEY is not configured');
    let w = wallets.get(chainId);
    if (!w) {
      const rt = chains.get(chainId);
      w = makeWalletClient({ rpcUrl: rt.rpcUrl, chainId, devnet: config.env === 'devnet', account });
      wallets.set(chainId, w);
    }
    return w;
  }

  // One operator transaction at a time per chain in this process: each takes its nonce from the node's
  // pending count, so two sent concurrently would collide.
  function serial<T>(chainId: number, fn: () => Promise<T>): Promise<T> {
    const run = (queues.get(chainId) ?? Promise.resolve()).then(fn, fn);
    queues.set(chainId, run.catch(() => undefined));
    return run;
  }

  /** Simulates first, so a call the router would refuse fails here with its error name and costs no gas. */
  async function send(chainId: number, write: () => Promise<Hex>, simulate: () => Promise<unknown>): Promise<Hex> {
    return serial(chainId, async () => {
      try {
        await simulate();
        return await write();
      } catch (err) {
        throw revertOf(err) ?? err;
      }
    });
  }

  const client = (chainId: number) => chains.get(chainId).publicClient;
  const operator = () => chains.operator!;

  return {
    hasOperator: () => chains.operator !== null,

    /** Latest block's timestamp: the clock the router checks deadlines against and the reserve hold is measured on. */
    async chainNow(chainId: number): Promise<Date> {
      const block = await client(chainId).getBlock({ blockTag: 'latest' });
      const now = new Date(Number(block.timestamp) * 1000);
      clockOffsetMs.set(chainId, now.getTime() - Date.now());
      return now;
    },

    /** The chain clock without an RPC call (request path): wall clock plus the last offset a worker saw. */
    estimatedChainNow: (chainId: number) => new Date(Date.now() + (clockOffsetMs.get(chainId) ?? 0)),

    async blockTime(chainId: number, blockNumber: bigint): Promise<Date> {
      const block = await client(chainId).getBlock({ blockNumber });
      return new Date(Number(block.timestamp) * 1000);
    },

    async orderReserve(chainId: number, router: Address, orderId: Hex): Promise<bigint> {
      const o = await client(chainId).readContract({ address: router, abi: paymentRouterAbi, functionName: 'orders', args: [orderId] });
      return o.reserve;
    },

    refundUsed: (chainId: number, router: Address, refundId: Hex) =>
      client(chainId).readContract({ address: router, abi: paymentRouterAbi, functionName: 'refundUsed', args: [refundId] }),

    batchSettled: (chainId: number, router: Address, batchId: Hex) =>
      client(chainId).readContract({ address: router, abi: paymentRouterAbi, functionName: 'batchSettled', args: [batchId] }),

    sendRefund(chainId: number, router: Address, ro: RefundOrderMessage, signature: Hex): Promise<Hex> {
      const call = { address: router, abi: paymentRouterAbi, functionName: 'refund', args: [ro, signature] } as const;
      return send(chainId, () => wallet(chainId).writeContract(call), () => client(chainId).simulateContract({ ...call, account: operator() }));
    },

    sendSettleBatch(chainId: number, router: Address, batchId: Hex, orderIds: Hex[]): Promise<Hex> {
      const call = { address: router, abi: paymentRouterAbi, functionName: 'settleBatch', args: [batchId, orderIds] } as const;
      return send(chainId, () => wallet(chainId).writeContract(call), () => client(chainId).simulateContract({ ...call, account: operator() }));
    },

    /** null while the transaction is not mined. */
    async receipt(chainId: number, hash: Hex): Promise<TransactionReceipt | null> {
      try {
        return await client(chainId).getTransactionReceipt({ hash });
      } catch (err) {
        if (err instanceof TransactionReceiptNotFoundError) return null;
        throw err;
      }
    },

    /** Whether the node still knows the transaction (mined or in its mempool). */
    async known(chainId: number, hash: Hex): Promise<boolean> {
      try {
        await client(chainId).getTransaction({ hash });
        return true;
      } catch (err) {
        if (err instanceof TransactionNotFoundError) return false;
        throw err;
      }
    },
  };
}

export type RouterClient = ReturnType<typeof createRouterClient>;
