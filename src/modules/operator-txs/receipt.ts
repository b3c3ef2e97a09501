import { TransactionNotFoundError, TransactionReceiptNotFoundError, type Hex, type PublicClient, type TransactionReceipt } from 'viem';

/** The receipt, or null while the transaction is not mined. */
export async function receiptOf(client: PublicClient, hash: Hex): Promise<TransactionReceipt | null> {
  try {
    return await client.getTransactionReceipt({ hash });
  } catch (err) {
    if (err instanceof TransactionReceiptNotFoundError) return null;
    throw err;
  }
}

/** The first of `hashes` (one nonce's attempts) that is mined. */
export async function firstMined(client: PublicClient, hashes: Hex[]): Promise<TransactionReceipt | null> {
  for (const hash of hashes) {
    const r = await receiptOf(client, hash);
    if (r) return r;
  }
  return null;
}

/** Whether the node still knows the transaction (mined or in its mempool). */
export async function knownToNode(client: PublicClient, hash: Hex): Promise<boolean> {
  try {
    await client.getTransaction({ hash });
    return true;
  } catch (err) {
    if (err instanceof TransactionNotFoundError) return false;
    throw err;
  }
}
