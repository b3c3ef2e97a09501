import type { Insertable } from 'kysely';
import type { Executor } from '../../db/client.js';
import { newId } from '../../lib/ids.js';
import { operatorTxsRepo, type OperatorTxsTable } from './repo.js';
import type { OperatorTxIntent } from './types.js';

/** The outbox row of an intent, as the sender reads it (queued, with a fresh id). */
export function intentRow(intent: OperatorTxIntent): Insertable<OperatorTxsTable> & { id: string; key_role: string; gas_limit: bigint | null } {
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
  };
}

/**
 * Records an intent to send an operator transaction. Call it inside the owner's own transaction, with the
 * owner's state change: the intent exists exactly when the change committed. The sender does the rest.
 */
export async function enqueueOperatorTx(tx: Executor, intent: OperatorTxIntent) {
  return operatorTxsRepo.insert(tx, intentRow(intent));
}
