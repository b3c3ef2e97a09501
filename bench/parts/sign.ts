/**
 * EIP-712 PayOrder signatures per second in this process (one core: Node signs on its main thread): the
 * service's signer (cached domain separator and type hash) and viem's signTypedData, which it must equal.
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Address } from 'viem';
import { signPayOrder, toBytes32Id, type PayOrderMessage } from '../../src/chain/eip712.js';
import { benchSigner } from '../lib/order-row.js';
import { closedLoop, loadAvg, log } from '../lib/util.js';

const ROUTER: Address = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const message = (i: number): PayOrderMessage => ({
  orderId: toBytes32Id(`ord_bench_${i}`), token: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512', amount: 25_000_000n,
  payer: '0x0000000000000000000000000000000000000000', merchant: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  platform: '0x90F79bf6EB2c4f870365E785982E1f101E93b906', serviceFee: 250_000n, platformFee: 1_250_000n, reserveHold: 2_350_000n,
  deadline: 1_900_000_000n, captureDeadline: 0n,
});

export async function benchSign(seconds: number) {
  const account = privateKeyToAccount(generatePrivateKey());
  const fast = benchSigner(account, 84532, ROUTER);
  for (let i = 0; i < 20; i++) {
    if ((await fast(message(i))) !== (await signPayOrder(account, 84532, ROUTER, message(i)))) throw new Error('the service signer disagrees with viem signTypedData');
  }
  log('sign: warm-up');
  await closedLoop(1, 1000, (i) => fast(message(i)));
  await closedLoop(1, 1000, (i) => signPayOrder(account, 84532, ROUTER, message(i)));
  log('sign: measuring');
  const bench = await closedLoop(1, seconds * 1000, (i) => fast(message(i)));
  const viem = await closedLoop(1, seconds * 1000, (i) => signPayOrder(account, 84532, ROUTER, message(i)));
  log(`  sign ${bench.per_s}/s (viem signTypedData ${viem.per_s}/s)`);
  return { bench_signer: bench, viem_sign_typed_data: viem, signatures_equal: true, load_avg: loadAvg() };
}
