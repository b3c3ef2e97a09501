import type { Executor } from '../../db/client.js';
import { newId } from '../../lib/ids.js';
import { operatorTxsRepo } from './repo.js';
import type { OperatorTxIntent } from './types.js';

/**
 * Records an intent to send an operator transaction. Call it inside the owner's own transaction, with the
 * owner's state change: the intent exists exactly when the change committed. The sender does the rest.
 */
export async function enqueueOperatorTx(tx: Executor, intent: OperatorTxIntent) {
  return operatorTxsRepo.insert(tx, {
    id: newId('otx'),
    chain_id: intent.chainId,
    purpose: intent.purpose,
    ref_id: intent.refId,
    to_address: intent.to,
    calldata: intent.calldata,
    state: 'queued',
    key_role: intent.key ?? 'operator',
    gas_limit: intent.gasLimit ?? null,
  });
}
