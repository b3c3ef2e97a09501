/**
 * The paid API: one Hono route behind `x402Paywall`. Each unpaid request gets a 402 naming a fresh Trisettle
 * order for the merchant; the stock x402 client signs USDC's TransferWithAuthorization to the router and
 * retries; the paywall settles it through Trisettle and the handler runs with the receipt.
 */
import { Hono } from 'hono';
import type { Trisettle } from '@trisettle/sdk';
import { x402Paywall, type X402Env } from '@trisettle/sdk/x402/hono';

export type PaidAppOptions = { trisettle: Trisettle; merchantId: string; price: string };

export function buildPaidApp({ trisettle, merchantId, price }: PaidAppOptions) {
  const app = new Hono<X402Env>();
  app.get('/', (c) => c.text('GET /forecast costs ' + price + ' USDC (x402)\n'));
  app.get(
    '/forecast',
    x402Paywall({ client: trisettle, merchantId, price, description: 'Tomorrow\'s forecast', metadata: { product: 'forecast' } }),
    (c) => {
      const paid = c.get('x402'); // payer, transaction, network, session, order { order_id, state, amount, computed_split }
      return c.json({ forecast: 'sunny, 21 °C', paid_by: paid.payer, order_id: paid.order?.order_id, transaction: paid.transaction });
    },
  );
  return app;
}
