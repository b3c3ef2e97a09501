import type { Hex } from 'viem';
import type { Tx } from '../../db/client.js';

/** What an operator transaction is for; each purpose has one owner module and one outcome handler. */
export type OperatorTxPurpose = 'refund' | 'refund_cancel' | 'settlement' | 'order_cancel' | 'relay' | 'capture' | 'authorization_void' | 'subscription_charge' | 'subscription_revoke' | 'x402_attribute' | 'x402_return' | 'deposit_sweep';

/** Which key sends an intent: the operator's, or the relayer's (gasless payments, modules/relay). One sender each. */
export type KeyRole = 'operator' | 'relayer';

/** An intent as its owner enqueues it (inside the owner's own transaction). */
export type OperatorTxIntent = {
  chainId: number; purpose: OperatorTxPurpose; refId: string; to: Hex; calldata: Hex; key?: KeyRole;
  /**
   * The most gas the sender may sign this intent with (the relay's: its submit simulation's limit, at most
   * RELAYER_GAS_LIMIT). The sender simulates again before signing; an intent that then needs more is rejected.
   */
  gasLimit?: bigint;
  /** The most the sender may bid per gas for it (the relay's reservation of the relayer's day); else the sender's cap. */
  maxFeeCap?: bigint;
};

/**
 * The final outcome of an intent, delivered once to its owner inside a database transaction:
 * `rejected` — the call reverted in simulation and nothing was sent; `reverted` / `success` — mined, at the
 * chain's confirmation depth. `error` is the decoded custom error name (e.g. EnforcedPause) when known.
 */
export type OperatorTxOutcome = {
  id: string;
  chainId: number;
  purpose: OperatorTxPurpose;
  refId: string;
  outcome: 'success' | 'reverted' | 'rejected';
  error: string | null;
  txHash: Hex | null;
  /** Of the mined transaction (null when rejected): what the sender paid, gas used × effective gas price. */
  gasUsed: bigint | null;
  effectiveGasPrice: bigint | null;
};

export type OutcomeHandler = (tx: Tx, outcome: OperatorTxOutcome) => Promise<void>;

export type SenderOptions = {
  /** Lease lifetime; renewed every tick, taken over by another instance once lapsed. */
  leaseMs: number;
  /** A sent transaction not mined after this long is broadcast again (same raw transaction). */
  rebroadcastMs: number;
  /** …and after this long replaced: same nonce, fees bumped by FEE_BUMP_PERCENT. */
  replaceMs: number;
  /** Upper bound for maxFeePerGas (wei): fees are never bid above it. */
  maxFeePerGas: bigint;
  /** Unmined transactions in flight at once per chain (the operator's key). */
  maxInFlight: number;
  /**
   * The same bound for the relayer's key: relays are independent payments, one per order, each simulated
   * before it is signed, and a gasless checkout burst must not queue behind a handful of blocks (bench: gasless).
   */
  relayerMaxInFlight: number;
  /**
   * RELAYER_GAS_LIMIT: the relayer's key never signs a transaction with more gas, and its simulations run with
   * at most this much (an intent needing more is rejected, `gas_limit_exceeded`, nothing sent).
   */
  relayerGasLimit: bigint;
};

export const DEFAULT_SENDER_OPTIONS: SenderOptions = {
  leaseMs: 30_000,
  rebroadcastMs: 30_000,
  replaceMs: 120_000,
  maxFeePerGas: 500n * 10n ** 9n,
  maxInFlight: 16,
  relayerMaxInFlight: 256,
  relayerGasLimit: 700_000n,
};
