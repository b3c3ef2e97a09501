import type { Order } from '../../../lib/types';

/** Every value of the API's OrderDetail.payment_method, in words. */
const METHODS: Record<string, string> = {
  approve_and_pay: 'Approve + pay',
  permit: 'Permit (EIP-2612 signature + pay)',
  gasless: 'Gasless (signed authorization, relayed)',
  batched: 'Batched (EIP-5792: approve + pay in one call)',
  x402: 'x402 (agent payment)',
  authorization: 'Authorization (charge later, captured)',
  subscription: 'Subscription charge (spend permission)',
};

type WithPayment = Order & { payment_method?: string | null; payer?: string | null };

/** How the buyer paid, in words; '—' before payment. */
export function paymentMethod(o: Order): string {
  const m = (o as WithPayment).payment_method;
  return m ? METHODS[m] ?? m : '—';
}

/** The wallet that paid (the `payer` the API reports, else who sent the payment). */
export function payer(o: Order): string | null {
  return (o as WithPayment).payer ?? o.paid_by ?? null;
}
