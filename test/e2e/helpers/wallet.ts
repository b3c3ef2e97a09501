import type { Page } from 'playwright-core';
import { createWalletClient, defineChain, http, numberToHex, type Address, type Hex, type TypedDataDefinition } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { execTransactionData, safePersonalSign, safeSignTypedData, type Call, type SafeAccount } from './safe-account.js';

/**
 * An EIP-1193 wallet for the browser tests. The page gets a small provider (announced with EIP-6963 as
 * "Test Wallet") whose every request goes through `page.exposeFunction` to this Node-side wallet. It holds
 * one dev account's key and signs like a real wallet: personal_sign, eth_signTypedData_v4 and
 * eth_sendTransaction (signed here, broadcast as a raw transaction to the devnet RPC); reads are forwarded
 * to the devnet RPC. Chain switching behaves like MetaMask: an unknown chain answers 4902 until
 * wallet_addEthereumChain adds it (and switches to it).
 *
 * Kinds: `eoa` (the default: no EIP-5792, answers 4200 to wallet_getCapabilities/wallet_sendCalls);
 * `zero-eth`, an EOA holding USDC and no ETH: it signs, but eth_sendTransaction fails as a node does
 * ("insufficient funds for gas * price + value"); `smart`, where the wallet's address is a Safe
 * (helpers/safe-account.ts) owned by the key: signatures are ERC-1271 signatures valid for the Safe,
 * wallet_getCapabilities reports atomic batching, wallet_sendCalls runs the calls atomically through the Safe
 * (execTransaction + MultiSendCallOnly, the owner pays the gas) and wallet_getCallsStatus reports it.
 */
export type WalletOptions = {
  privateKey: Hex;
  rpcUrl: string;
  /** The devnet chain: the only one transactions can be sent on. */
  chainId: number;
  /** The chain the wallet starts on (default: chainId). */
  startChainId?: number;
  /** Chains the wallet knows without wallet_addEthereumChain (default: [startChainId]). */
  knownChains?: number[];
  kind?: 'eoa' | 'zero-eth' | 'smart';
  /** The Safe whose owner is `privateKey` (kind 'smart'). */
  safe?: SafeAccount;
  /** How it announces itself (EIP-6963); default "Test Wallet", dev.trisettle.testwallet. */
  info?: { name: string; rdns: string };
};

const UNSUPPORTED = { code: 4200, message: 'The requested method is not supported by this wallet.' };

export type RpcCall = { method: string; params: unknown[] };
type Reply = { result?: unknown; error?: { code: number; message: string; data?: unknown }; events?: [string, unknown][] };

export class TestWallet {
  readonly address: Address;
  readonly calls: RpcCall[] = [];
  readonly addedChains: { chainId: number; rpcUrls: string[] }[] = [];
  chainId: number;
  connected = false;
  private readonly refusals = new Map<string, number>();
  private readonly batches = new Map<string, Hex>();
  readonly kind: 'eoa' | 'zero-eth' | 'smart';
  private readonly known: Set<number>;
  private readonly account;
  private readonly wallet;
  private rpcId = 0;

  constructor(private readonly opts: WalletOptions) {
    this.account = privateKeyToAccount(opts.privateKey);
    this.kind = opts.kind ?? 'eoa';
    if (this.kind === 'smart' && !opts.safe) throw new Error('a smart wallet needs its Safe');
    this.address = this.kind === 'smart' ? opts.safe!.address : this.account.address;
    this.chainId = opts.startChainId ?? opts.chainId;
    this.known = new Set(opts.knownChains ?? [this.chainId]);
    const chain = defineChain({ id: opts.chainId, name: 'devnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [opts.rpcUrl] } } });
    this.wallet = createWalletClient({ account: this.account, chain, transport: http(opts.rpcUrl) });
  }

  /** The next request with this method is refused as a user would (EIP-1193 code 4001). */
  rejectNextRequest(method: string, times = 1) {
    this.refusals.set(method, (this.refusals.get(method) ?? 0) + times);
  }

  count(method: string): number {
    return this.calls.filter((c) => c.method === method).length;
  }

  /** Installs the provider in every page of this page's context, before any page script runs. */
  async install(page: Page) {
    await page.exposeFunction('__trisettleTestWallet', async (json: string) => JSON.stringify(await this.handle(JSON.parse(json) as RpcCall)));
    await page.addInitScript(pageProvider(this.opts.info ?? { name: 'Test Wallet', rdns: 'dev.trisettle.testwallet' }));
  }

  async handle({ method, params = [] }: RpcCall): Promise<Reply> {
    this.calls.push({ method, params });
    const refusals = this.refusals.get(method) ?? 0;
    if (refusals > 0) {
      this.refusals.set(method, refusals - 1);
      return { error: { code: 4001, message: 'User rejected the request.' } };
    }
    try {
      return await this.dispatch(method, params);
    } catch (err) {
      const e = err as { code?: number; message?: string; data?: unknown; shortMessage?: string; details?: string };
      return { error: { code: typeof e.code === 'number' ? e.code : -32603, message: e.details ?? e.shortMessage ?? e.message ?? 'Internal error', data: e.data } };
    }
  }

  private async dispatch(method: string, params: unknown[]): Promise<Reply> {
    const hexChain = numberToHex(this.chainId);
    switch (method) {
      case 'eth_requestAccounts':
        this.connected = true;
        return { result: [this.address], events: [['connect', { chainId: hexChain }], ['accountsChanged', [this.address]]] };
      case 'wallet_requestPermissions':
        this.connected = true;
        return { result: [{ parentCapability: 'eth_accounts', caveats: [{ type: 'restrictReturnedAccounts', value: [this.address] }] }] };
      case 'wallet_getPermissions':
        return { result: this.connected ? [{ parentCapability: 'eth_accounts', caveats: [{ type: 'restrictReturnedAccounts', value: [this.address] }] }] : [] };
      case 'wallet_revokePermissions':
        this.connected = false;
        return { result: null };
      case 'eth_accounts':
        return { result: this.connected ? [this.address] : [] };
      case 'eth_chainId':
        return { result: hexChain };
      case 'net_version':
        return { result: String(this.chainId) };
      case 'wallet_switchEthereumChain': {
        const target = Number((params[0] as { chainId: string }).chainId);
        if (!this.known.has(target)) return { error: { code: 4902, message: `Unrecognized chain ID "${numberToHex(target)}". Try adding the chain using wallet_addEthereumChain first.` } };
        return this.switchTo(target);
      }
      case 'wallet_addEthereumChain': {
        const p = params[0] as { chainId: string; rpcUrls?: string[] };
        const target = Number(p.chainId);
        this.known.add(target);
        this.addedChains.push({ chainId: target, rpcUrls: p.rpcUrls ?? [] });
        return this.switchTo(target);
      }
      case 'personal_sign': {
        const [data, from] = params as [Hex, Address];
        this.assertAccount(from);
        if (this.kind === 'smart') return { result: await safePersonalSign(this.opts.safe!, data) };
        return { result: await this.account.signMessage({ message: { raw: data } }) };
      }
      case 'eth_signTypedData_v4': {
        const [from, json] = params as [Address, string];
        this.assertAccount(from);
        const typed = (typeof json === 'string' ? JSON.parse(json) : json) as TypedDataDefinition & { types: Record<string, unknown> };
        const { EIP712Domain: _domain, ...types } = typed.types;
        if (this.kind === 'smart') return { result: await safeSignTypedData(this.opts.safe!, { ...typed, types } as TypedDataDefinition) };
        return { result: await this.account.signTypedData({ ...typed, types } as TypedDataDefinition) };
      }
      case 'eth_sendTransaction': {
        const tx = params[0] as { from: Address; to?: Address; data?: Hex; value?: Hex; gas?: Hex };
        this.assertAccount(tx.from);
        if (this.chainId !== this.opts.chainId) return { error: { code: -32603, message: `This test wallet can only send on chain ${this.opts.chainId}; it is on ${this.chainId}.` } };
        if (this.kind === 'smart') return { result: await this.sendFromSafe([{ to: tx.to!, data: tx.data, value: tx.value ? BigInt(tx.value) : 0n }]) };
        if (this.kind === 'zero-eth' && (await this.forward('eth_getBalance', [this.address, 'latest'])).result === '0x0') {
          return { error: { code: -32000, message: 'insufficient funds for gas * price + value: balance 0' } };
        }
        const hash = await this.wallet.sendTransaction({
          to: tx.to,
          data: tx.data,
          value: tx.value ? BigInt(tx.value) : undefined,
          gas: tx.gas ? BigInt(tx.gas) : undefined,
        });
        return { result: hash };
      }
      case 'wallet_getCapabilities':
        if (this.kind !== 'smart') return { error: UNSUPPORTED };
        return { result: { [numberToHex(this.opts.chainId)]: { atomic: { status: 'supported' } } } };
      case 'wallet_sendCalls': {
        if (this.kind !== 'smart') return { error: UNSUPPORTED };
        const req = params[0] as { from?: Address; chainId: Hex; calls: { to: Address; data?: Hex; value?: Hex }[] };
        this.assertAccount(req.from);
        if (Number(req.chainId) !== this.opts.chainId) return { error: { code: 5710, message: 'Unsupported chain id' } };
        const hash = await this.sendFromSafe(req.calls.map((c) => ({ to: c.to, data: c.data, value: c.value ? BigInt(c.value) : 0n })));
        const id = `0x${hash.slice(2)}${'0'.repeat(8)}` as Hex;
        this.batches.set(id, hash);
        return { result: { id } };
      }
      case 'wallet_getCallsStatus': {
        if (this.kind !== 'smart') return { error: UNSUPPORTED };
        const hash = this.batches.get(params[0] as string);
        if (!hash) return { error: { code: 5730, message: 'Unknown bundle id' } };
        return { result: await this.callsStatus(params[0] as Hex, hash) };
      }
      default:
        return this.forward(method, params);
    }
  }

  /** The calls, atomically, from the Safe: execTransaction sent (and paid) by the owner. */
  private async sendFromSafe(calls: Call[]): Promise<Hex> {
    const safe = this.opts.safe!;
    return this.wallet.sendTransaction({ to: safe.address, data: execTransactionData(safe, calls) });
  }

  private async callsStatus(id: Hex, hash: Hex) {
    const receipt = (await this.forward('eth_getTransactionReceipt', [hash])).result as { status: Hex; logs: unknown[]; blockHash: Hex; blockNumber: Hex; gasUsed: Hex } | null;
    const base = { version: '2.0.0', id, chainId: numberToHex(this.opts.chainId), atomic: true };
    if (!receipt) return { ...base, status: 100 };
    // A Safe whose inner call reverted emits ExecutionFailure; execTransaction itself reverts here (safeTxGas 0).
    const ok = receipt.status === '0x1';
    const receipts = [{ logs: receipt.logs, status: receipt.status, blockHash: receipt.blockHash, blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed, transactionHash: hash }];
    return { ...base, status: ok ? 200 : 500, receipts };
  }

  private switchTo(chainId: number): Reply {
    if (this.chainId === chainId) return { result: null };
    this.chainId = chainId;
    return { result: null, events: [['chainChanged', numberToHex(chainId)]] };
  }

  private assertAccount(from: string | undefined) {
    if (from && from.toLowerCase() !== this.address.toLowerCase()) throw Object.assign(new Error(`Unknown account ${from}`), { code: 4100 });
  }

  private async forward(method: string, params: unknown[]): Promise<Reply> {
    const res = await fetch(this.opts.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++this.rpcId, method, params }),
    });
    const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
    return body.error ? { error: body.error } : { result: body.result };
  }
}

/** Runs in the page before its scripts: the EIP-1193 provider and its EIP-6963 announcement. */
const pageProvider = (info: { name: string; rdns: string }) => `(() => {
  const INFO = ${JSON.stringify(info)};
  const listeners = new Map();
  const emit = (name, payload) => { for (const fn of [...(listeners.get(name) || [])]) { try { fn(payload); } catch (e) { console.error(e); } } };
  const provider = {
    isTestWallet: true,
    async request(args) {
      const { method, params } = args || {};
      const raw = await window.__trisettleTestWallet(JSON.stringify({ method, params: params || [] }));
      const reply = JSON.parse(raw);
      for (const [name, payload] of reply.events || []) emit(name, payload);
      if (reply.error) {
        const err = new Error(reply.error.message);
        err.code = reply.error.code;
        if (reply.error.data !== undefined) err.data = reply.error.data;
        throw err;
      }
      return reply.result;
    },
    on(name, fn) { if (!listeners.has(name)) listeners.set(name, new Set()); listeners.get(name).add(fn); return provider; },
    removeListener(name, fn) { listeners.get(name)?.delete(fn); return provider; },
  };
  provider.off = provider.removeListener;
  provider.addListener = provider.on;
  const icon = 'data:image/svg+xml;base64,' + btoa('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#0f766e"/><path d="M8 12h16v10H8z" fill="none" stroke="#fff" stroke-width="2.4" stroke-linejoin="round"/><circle cx="20" cy="17" r="1.8" fill="#fff"/></svg>');
  const detail = Object.freeze({ info: Object.freeze({ uuid: '6f1c2a0e-5b7d-4c1e-9a3f-2d8e7b6c5a41', name: INFO.name, icon, rdns: INFO.rdns }), provider });
  const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }));
  window.addEventListener('eip6963:requestProvider', announce);
  announce();
})();`;
