import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { Logger } from '../../lib/logger.js';
import type { ChainsService } from '../chains/service.js';
import type { TokenDomains } from './token-domain.js';

/** What every relay operation needs, passed in explicitly (modules/relay/index.ts assembles it). */
export type RelayDeps = {
  db: Db;
  config: Pick<Config, 'gaslessEnabled' | 'gaslessDailyCap' | 'relayerGasLimit' | 'relayerDailyBudgetWei' | 'gaslessMinAmount'>;
  chains: ChainsService;
  tokenDomains: TokenDomains;
  /** Tells this process's relayer sender (if it runs here) that a relay was just enqueued; others poll. */
  wake?: () => void;
  logger: Logger;
};

/** The UTC day a chain timestamp falls in, as the daily cap and the relayer's budget count it. */
export const utcDay = (unixSeconds: bigint): string => new Date(Number(unixSeconds) * 1000).toISOString().slice(0, 10);

/** Seconds from a chain timestamp to the next UTC day (Retry-After of a spent budget). */
export const secondsToNextDay = (unixSeconds: bigint): number => 86_400 - Number(unixSeconds % 86_400n);
