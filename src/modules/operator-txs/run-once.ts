import type { ChainsService } from '../chains/service.js';
import type { SenderContext } from './context.js';
import { senderTick } from './tick.js';
import type { KeyRole } from './types.js';

const KEY_ROLES: KeyRole[] = ['operator', 'relayer'];

/** The operator's sender, and the relayer's (gasless payments): same outbox, own key, own lease and nonces. */
export const accountOf = (chains: ChainsService, role: KeyRole) => (role === 'operator' ? chains.operator : chains.relayer);

/** The keys this deployment has. */
export const rolesOf = (chains: ChainsService): KeyRole[] => KEY_ROLES.filter((r) => accountOf(chains, r) !== null);

/** Everything a sender needs but its key. */
export type Senders = Omit<SenderContext, 'account' | 'keyRole'>;

/** One pass of each key's sender on the chain (or of `only`); whether this instance held the operator's lease (or `only`'s). */
export async function runSenders(s: Senders, chainId: number, only?: KeyRole): Promise<boolean> {
  let held = false;
  for (const role of only ? [only] : rolesOf(s.chains)) {
    const account = accountOf(s.chains, role);
    const got = account ? await senderTick({ ...s, account, keyRole: role }, chainId) : false;
    if (role === 'operator' || only) held = got;
  }
  return held;
}
