import { getAddress } from 'viem';
import { AppError } from '../../lib/errors.js';
import { sha256Hex } from '../../lib/ids.js';
import { formatUnits } from '../../lib/money.js';
import { latestBlock } from '../relay/latest-block.js';
import { adoptUsedAuthorization } from './adopt.js';
import { depthOf, onChain, paymentRequiredAnswer, receiptOf, settleResponse, type X402Answer } from './answer.js';
import type { X402Deps } from './context.js';
import { ALREADY_ANSWERED } from './facilitator.js';
import { decodePaymentSignature } from './payload.js';
import { x402Repo, type SessionWithOrder } from './repo.js';
import { checkPayable, encodeHeader, paymentRequiredOf } from './requirements.js';
import { enqueueSettlement } from './settle.js';
import { UsedAtToken, verifyPayment, X402Refusal } from './verify.js';
import { waitForSettlement } from './wait.js';

const noSession = () => new AppError('not_found', 'No such checkout session.');

/** The session behind an x402 URL's token (the same bearer secret as the hosted page's); 404 when there is none. */
async function sessionOfToken(deps: X402Deps, token: string): Promise<SessionWithOrder> {
  if (!token.startsWith('cs_live_')) throw noSession();
  const found = await x402Repo.sessionByTokenHash(deps.db, sha256Hex(token));
  if (!found) throw noSession();
  return found;
}

/**
 * An order below X402_MIN_AMOUNT is not offered at all (409, not a 402 the client would sign and then see refused):
 * the x402 client hands the answer back to its caller, whose buyer can still pay at the checkout page.
 */
function checkAboveMinimum(deps: X402Deps, found: SessionWithOrder): void {
  if (found.order.amount >= deps.config.x402MinAmount) return;
  throw new AppError('order_not_payable', `This order (${formatUnits(found.order.amount)} USDC) is below the x402 minimum of ${formatUnits(deps.config.x402MinAmount)} USDC (X402_MIN_AMOUNT); pay it at the checkout page.`);
}

/**
 * GET /x402/{token}. Without PAYMENT-SIGNATURE: 402 with the session's PaymentRequired. With it: the payment is
 * verified (verify.ts), relayed (settle.ts) and waited for until mined: 200 with PAYMENT-RESPONSE and the receipt,
 * or 402 with the refusal's reason. A session that cannot be paid is 404 / 409 / 410 (AppError), never a 402;
 * nor is an order below X402_MIN_AMOUNT (409).
 */
export async function payByToken(deps: X402Deps, token: string, header: string | undefined): Promise<X402Answer> {
  const found = await sessionOfToken(deps, token);
  const rt = deps.chains.get(found.order.chain_id);
  const block = await onChain(() => latestBlock(rt.publicClient));
  rt.clock.observe(block.timestamp);
  checkPayable(found, block.timestamp);
  checkAboveMinimum(deps, found);
  const domain = await onChain(() => deps.tokenDomains.get(rt.publicClient, found.order.chain_id, getAddress(found.order.token_address)));
  const offer = (error?: string, message?: string) => paymentRequiredAnswer(paymentRequiredOf(deps, found, token, domain, block.timestamp, error), {}, message);
  if (header === undefined) return offer();
  const payload = decodePaymentSignature(header);
  if (!payload) return offer('invalid_payload', 'PAYMENT-SIGNATURE is not a base64 JSON x402 v2 PaymentPayload of the exact EVM scheme.');
  try {
    const verified = await onChain(() => verifyPayment(deps, found, payload, block.timestamp));
    const payment = await onChain(() => enqueueSettlement(deps, verified, block.timestamp));
    const result = await waitForSettlement(deps, payment.id);
    const network = `eip155:${found.order.chain_id}`;
    const payer = verified.auth.from;
    if (result.outcome === 'mined' && !(await x402Repo.claimAnswer(deps.db, payment.id))) return offer(ALREADY_ANSWERED.reason, ALREADY_ANSWERED.message);
    if (result.outcome === 'mined') {
      const order = (await x402Repo.sessionById(deps.db, found.session.id))!.order;
      const response = settleResponse({ success: true, transaction: result.txHash, network, payer });
      return { status: 200, headers: { 'PAYMENT-RESPONSE': encodeHeader(response), 'Cache-Control': 'no-store' }, body: receiptOf(order, { txHash: result.txHash, confirmations: depthOf(deps, order.chain_id) }) };
    }
    const reason = result.outcome === 'pending' ? 'settlement_pending' : result.reason;
    const response = settleResponse({ success: false, errorReason: reason, transaction: result.txHash, network, payer });
    const message = result.outcome === 'pending' ? 'The payment was sent and is not mined yet; the session read shows when the order confirms.' : result.message;
    const required = paymentRequiredOf(deps, found, token, domain, block.timestamp, reason);
    return paymentRequiredAnswer(required, { 'PAYMENT-RESPONSE': encodeHeader(response) }, message);
  } catch (err) {
    if (err instanceof UsedAtToken) await onChain(() => adoptUsedAuthorization(deps, err.verified));
    if (err instanceof X402Refusal) return offer(err.reason, err.message);
    throw err;
  }
}
