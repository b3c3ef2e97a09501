import type { CheckoutSession } from '../../../lib/types';
import { payOrder } from './approve';
import { payBatched } from './batched';
import type { FlowContext, FlowResult, Method } from './context';
import { payGasless } from './gasless';
import { payWithPermit } from './permit';

/** Runs one method's flow to the point where the payment has left the wallet (or went to the relayer). */
export function runFlow(method: Method, ctx: FlowContext, session: CheckoutSession): Promise<FlowResult> {
  switch (method) {
    case 'gasless':
      return payGasless(ctx, session.gasless!.typed_data!, session.order.eip712);
    case 'batched':
      return payBatched(ctx);
    case 'permit':
      return payWithPermit(ctx);
    case 'approve':
      return payOrder(ctx);
  }
}
