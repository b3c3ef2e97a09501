import type { Insertable } from 'kysely';
import type { Executor } from '../../db/client.js';
import { newId } from '../../lib/ids.js';
import { operatorTxsRepo, type OperatorTxsTable } from './repo.js';
import type { KeyRole, OperatorTxIntent } from './types.js';

/** The outbox row of an intent: queued, with a fresh id (enqueueOperatorTx inserts it; the relay's accept too). */
export type IntentRow = Insertable<OperatorTxsTable> & { id: string; state: 'queued'; key_role: KeyRole; gas_limit: bigint | null; max_fee_cap: string | null };

export function intentRow(intent: OperatorTxIntent): IntentRow {
  return {
    id: newId('otx'),
    chain_id: intent.chainId,
    purpose: intent.purpose,
    ref_id: intent.refId,
    to_address: intent.to,
    calldata: intent.calldata,
    state: 'queued',
    key_role: intent.key ?? 'operator',
    gas_limit: intent.gasLimit ?? null,
    max_fee_cap: intent.maxFeeCap?.toString() ?? null,
  };
}

/**
 * Records an intent to send an operator transaction. Call it inside the owner's own transaction, with the
 * owner's state change: the intent exists exactly when the change committed. The sender does the rest.
 */
export async function enqueueOperatorTx(tx: Executor, intent: OperatorTxIntent) {
  return operatorTxsRepo.insert(tx, intentRow(intent));
}
