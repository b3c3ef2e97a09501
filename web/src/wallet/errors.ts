import { BaseError, ContractFunctionRevertedError, UserRejectedRequestError } from 'viem';

/**
 * Wallet and chain errors in words a buyer understands. Never a stack trace: the detail goes to the
 * console for support, the person gets a sentence.
 */
const REVERT_REASONS: Record<string, string> = {
  OrderExpired: 'This payment link has expired. Ask the merchant for a new one.',
  WrongPayer: 'This payment is reserved for a different wallet.',
  AlreadyPaid: 'This order has already been paid.',
  InvalidSigner: 'The payment authorisation is not valid. Ask the merchant for a new link.',
  EnforcedPause: 'Payments are paused for maintenance. Try again later.',
  ERC20InsufficientBalance: 'Your wallet does not have enough USDC for this payment.',
  ERC20InsufficientAllowance: 'The USDC approval is too low. Approve again and retry.',
};

export function walletErrorMessage(err: unknown): string {
  console.error(err);
  const text = collectText(err);
  if (isRejected(err) || /user (rejected|denied|cancel)|rejected the request|request rejected|denied transaction/i.test(text)) {
    return 'You rejected the request in your wallet.';
  }
  if (err instanceof BaseError) {
    const revert = err.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
    const name = revert?.data?.errorName;
    if (name && REVERT_REASONS[name]) return REVERT_REASONS[name];
  }
  for (const [name, message] of Object.entries(REVERT_REASONS)) if (text.includes(name)) return message;
  if (/insufficient funds|exceeds (the )?balance|gas required exceeds/i.test(text)) {
    return 'Your wallet does not have enough ETH to pay the network fee.';
  }
  if (/transfer amount exceeds balance|insufficient balance/i.test(text)) return 'Your wallet does not have enough USDC for this payment.';
  if (/already pending|request already|-32002/i.test(text)) return 'Your wallet already has a request open. Check the wallet window.';
  if (/chain.*(mismatch|does not match)|wrong network/i.test(text)) return 'Your wallet is on a different network. Switch network and try again.';
  if (/connector not connected|not connected/i.test(text)) return 'Your wallet disconnected. Connect it again.';
  if (/fetch|network|timeout|timed out/i.test(text)) return 'The network did not answer. Check your connection and try again.';
  if (err instanceof BaseError && err.shortMessage) return `Your wallet reported an error: ${err.shortMessage}`;
  return 'Your wallet reported an error. Try again.';
}

function isRejected(err: unknown): boolean {
  if (err instanceof BaseError && err.walk((e) => e instanceof UserRejectedRequestError)) return true;
  let cur: unknown = err;
  for (let i = 0; i < 6 && cur && typeof cur === 'object'; i++) {
    const code = (cur as { code?: unknown }).code;
    if (code === 4001 || code === 'ACTION_REJECTED') return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}

function collectText(err: unknown): string {
  const parts: string[] = [];
  let cur: unknown = err;
  for (let i = 0; i < 6 && cur; i++) {
    if (cur instanceof BaseError) parts.push(cur.shortMessage, cur.details ?? '', ...(cur.metaMessages ?? []));
    else if (cur instanceof Error) parts.push(cur.message);
    else if (typeof cur === 'object' && 'message' in (cur as object)) parts.push(String((cur as { message: unknown }).message));
    cur = typeof cur === 'object' ? (cur as { cause?: unknown }).cause : undefined;
  }
  return parts.join(' ');
}
