/**
 * What the buyer's wallet does with a checkout session (the hosted page does the same in a browser):
 * read the session publicly, approve the router for the amount, then call payOrder(message, signature).
 * The PayOrder struct's ABI comes from the session's own typed-data definitions, so the buyer pays
 * exactly what the service signed.
 */
import { createPublicClient, createWalletClient, defineChain, erc20Abi, http, type Abi, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { PublicCheckoutSession } from '@trisettle/sdk';

type Field = { name: string; type: string };

function payOrderCall(order: PublicCheckoutSession['order']) {
  const fields = order.eip712.types[order.eip712.primary_type] as Field[];
  const abi = [{
    type: 'function', name: 'payOrder', stateMutability: 'nonpayable', outputs: [],
    inputs: [{ name: 'order', type: 'tuple', components: fields }, { name: 'signature', type: 'bytes' }],
  }] as const satisfies Abi;
  const message = Object.fromEntries(fields.map(({ name, type }) => {
    const v = order.eip712.message[name] as string;
    return [name, type.startsWith('uint') ? BigInt(v) : v];
  }));
  return { abi, message, amount: BigInt(order.eip712.message.amount as string) };
}

export async function payCheckoutSession(o: {
  session: PublicCheckoutSession;
  rpcUrl: string;
  buyerPrivateKey: Hex;
  /** Devnet only: mine a block instead of waiting for the next one (anvil_mine). */
  mine?: boolean;
}): Promise<{ approveTx: Hex; payTx: Hex }> {
  const { order } = o.session;
  const chain = defineChain({
    id: order.chain_id, name: o.session.chain.name, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [o.rpcUrl] } },
  });
  const account = privateKeyToAccount(o.buyerPrivateKey);
  const publicClient = createPublicClient({ chain, transport: http(o.rpcUrl) });
  const wallet = createWalletClient({ chain, account, transport: http(o.rpcUrl) });
  const confirm = async (hash: Hex) => {
    if (o.mine) await publicClient.request({ method: 'anvil_mine' as never, params: ['0x1', '0x0'] as never });
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 250 });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
  };
  const { abi, message, amount } = payOrderCall(order);
  const approveTx = await wallet.writeContract({ address: order.token_address as Address, abi: erc20Abi, functionName: 'approve', args: [order.pay_to as Address, amount] });
  await confirm(approveTx);
  const payTx = await wallet.writeContract({ address: order.pay_to as Address, abi, functionName: 'payOrder', args: [message as never, order.signature as Hex] });
  await confirm(payTx);
  return { approveTx, payTx };
}
