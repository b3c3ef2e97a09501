import type { PrivateKeyAccount } from 'viem/accounts';
import type { Db } from '../../db/client.js';
import type { Logger } from '../../lib/logger.js';
import type { ChainsService } from '../chains/service.js';
import type { KeyRole, OperatorTxPurpose, OutcomeHandler, SenderOptions } from './types.js';

/**
 * What every step of the sender needs. `holder` names this instance in the lease table; `fault` is the
 * TEST-ONLY hook of OPERATOR_TX_FAULT (config.ts): never set in production.
 */
export type SenderContext = {
  db: Db;
  chains: ChainsService;
  logger: Logger;
  account: PrivateKeyAccount;
  /** The key this sender signs with: it sends only intents enqueued for that key. */
  keyRole: KeyRole;
  holder: string;
  options: SenderOptions;
  handlers: Map<OperatorTxPurpose, OutcomeHandler>;
  fault: string | null;
};
