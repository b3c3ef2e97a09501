/**
 * Just enough JSON-RPC and ABI encoding for `trisettle trigger` to pay on the local devnet without a wallet
 * library: anvil's dev accounts are unlocked, so `eth_sendTransaction` with `from` is signed by anvil itself,
 * and function selectors come from the node's `web3_sha3` (keccak-256). Devnet only, by construction: a real
 * chain's node holds no unlocked accounts.
 */
export type Hex = `0x${string}`;
type Field = { name: string; type: string };

export class DevnetRpc {
  #id = 0;
  constructor(readonly url: string) {}

  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++this.#id, method, params }), signal: AbortSignal.timeout(15_000),
      });
    } catch (err) {
      throw new Error(`no answer from the devnet RPC at ${this.url} (${err instanceof Error ? err.message : String(err)}): is \`npm start\` running? (--rpc-url or TRISETTLE_RPC_URL)`);
    }
    const body = (await res.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  }

  /** anvil's unlocked dev accounts (funded with ETH and, on the devnet, test USDC). */
  async accounts(): Promise<Hex[]> {
    const accounts = await this.call<Hex[]>('eth_accounts');
    if (accounts.length < 2) throw new Error(`the RPC at ${this.url} has no unlocked dev accounts: trigger runs against the local devnet only`);
    return accounts;
  }

  async chainId(): Promise<number> {
    return Number(await this.call<Hex>('eth_chainId'));
  }

  async selector(signature: string): Promise<Hex> {
    const hash = await this.call<Hex>('web3_sha3', [`0x${Buffer.from(signature, 'utf8').toString('hex')}`]);
    return hash.slice(0, 10) as Hex;
  }

  /** Sends from an unlocked account and waits for the receipt; a revert throws. */
  async transact(from: Hex, to: Hex, data: Hex, timeoutMs = 60_000): Promise<Hex> {
    const hash = await this.call<Hex>('eth_sendTransaction', [{ from, to, data }]);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const receipt = await this.call<{ status: Hex } | null>('eth_getTransactionReceipt', [hash]);
      if (receipt) {
        if (receipt.status !== '0x1') throw new Error(`transaction ${hash} reverted`);
        return hash;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`transaction ${hash} not mined within ${timeoutMs / 1000} s`);
  }
}

const ONE_WORD = /^(address|bool|bytes32|u?int(8|16|24|32|40|48|56|64|72|80|88|96|104|112|120|128|136|144|152|160|168|176|184|192|200|208|216|224|232|240|248|256)?)$/;

/** One 32-byte ABI word of a static value (address, bool, bytes32, uintN given as a decimal or hex string). */
export function word(type: string, value: unknown): string {
  if (!ONE_WORD.test(type)) throw new Error(`cannot encode a ${type} (the CLI pays structs of one-word fields)`);
  if (type === 'bytes32') return String(value).slice(2).padEnd(64, '0');
  const n = type === 'bool' ? (value === true || value === 'true' ? 1n : 0n) : BigInt(String(value));
  if (n < 0n) throw new Error(`negative ${type} not supported`);
  return n.toString(16).padStart(64, '0');
}

/** `name((t1,t2,…),bytes)` calldata: a static struct followed by dynamic bytes (payOrder(order, signature)). */
export async function structAndBytesCall(rpc: DevnetRpc, name: string, fields: Field[], message: Record<string, unknown>, bytes: Hex): Promise<Hex> {
  const selector = await rpc.selector(`${name}((${fields.map((f) => f.type).join(',')}),bytes)`);
  const head = fields.map((f) => word(f.type, message[f.name])).join('');
  const data = bytes.slice(2);
  const offset = ((fields.length + 1) * 32).toString(16).padStart(64, '0');
  const length = (data.length / 2).toString(16).padStart(64, '0');
  return `${selector}${head}${offset}${length}${data.padEnd(Math.ceil(data.length / 64) * 64, '0')}` as Hex;
}

/** ERC-20 approve(spender, amount). */
export async function approveCall(rpc: DevnetRpc, spender: Hex, amount: bigint): Promise<Hex> {
  return `${await rpc.selector('approve(address,uint256)')}${word('address', spender)}${word('uint256', amount)}` as Hex;
}
