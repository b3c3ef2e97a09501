import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hashDomain, zeroAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { paymentRouterAbi, paymentRouterBytecode } from '../../src/chain/artifacts/PaymentRouter.js';
import { subscriptionManagerAbi } from '../../src/chain/artifacts/SubscriptionManager.js';
import { runsArtifact } from '../../src/chain/deploy.js';
import { circleUsdcAbi } from '../../src/chain/circle-usdc.js';
import { makeAnvilClient, makePublicClient, makeWalletClient } from '../../src/chain/clients.js';
import { startDevnet, type Devnet, type DevnetInfo } from '../../src/chain/devnet.js';
import { eip712DomainType, signPayOrder, toBytes32Id } from '../../src/chain/eip712.js';
import { testUsdcAbi, testUsdcBytecode } from '../../src/chain/artifacts/TestUSDC.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 60_000 });

const dataDir = mkdtempSync(path.join(tmpdir(), 'trisettle-devnet-'));
const quiet = { info: () => {}, warn: () => {} };
let running: Devnet | null = null;

afterAll(async () => {
  await running?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('devnet', () => {
  it('keeps its contracts, secrets, balances and event history across a restart', async () => {
    running = await startDevnet({ dataDir, port: 0, log: quiet });
    const first = running.info;
    expect(running.deployed).toBe(true);
    const secrets = running.secrets;
    expect(first.chain_id).toBe(84532);
    expect(first.accounts).toHaveLength(10);
    expect(first.accounts[0]?.address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'); // anvil account 0
    expect(statSync(path.join(dataDir, 'devnet-secrets.json')).mode & 0o777).toBe(0o600);

    // Pay one order so there is history for an indexer to find after the restart.
    const client = makePublicClient({ rpcUrl: first.rpc_url, chainId: 84532, devnet: true });
    const buyer = privateKeyToAccount(first.accounts[0]!.private_key);
    const wallet = makeWalletClient({ rpcUrl: first.rpc_url, chainId: 84532, devnet: true, account: buyer });
    const mineAndWait = async (hash: `0x${string}`) => {
      await makeAnvilClient(first.rpc_url).mine({ blocks: 1 });
      expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
    };
    const msg = {
      orderId: toBytes32Id('ord_devnet_restart'),
      token: first.usdc,
      amount: 5_000_000n,
      payer: zeroAddress,
      merchant: first.accounts[1]!.address,
      platform: first.accounts[2]!.address,
      serviceFee: 50_000n,
      platformFee: 0n,
      reserveHold: 495_000n,
      deadline: BigInt(Math.floor(Date.now() / 1000) + 600),
      captureDeadline: 0n,
    };
    await mineAndWait(await wallet.writeContract({ address: first.usdc, abi: circleUsdcAbi, functionName: 'approve', args: [first.router, msg.amount] }));
    const signer = privateKeyToAccount(secrets.signerPrivateKey);
    const signature = await signPayOrder(signer, 84532, first.router, msg);
    await mineAndWait(await wallet.writeContract({ address: first.router, abi: paymentRouterAbi, functionName: 'payOrder', args: [msg, signature] }));
    // The SubscriptionManager is deployed for this router and registered as its module.
    expect(await client.readContract({ address: first.router, abi: paymentRouterAbi, functionName: 'isModule', args: [first.subscription_manager] })).toBe(true);
    expect(await client.readContract({ address: first.subscription_manager, abi: subscriptionManagerAbi, functionName: 'router' })).toBe(first.router);
    const headBefore = await client.getBlockNumber();
    await running.stop();
    running = null;

    running = await startDevnet({ dataDir, port: 0, log: quiet });
    const second = running.info;
    expect(running.deployed).toBe(false);
    expect({ ...second, rpc_url: '' }).toEqual({ ...first, rpc_url: '' });
    expect(running.secrets).toEqual(secrets);

    const again = makePublicClient({ rpcUrl: second.rpc_url, chainId: 84532, devnet: true });
    expect(await again.getBlockNumber()).toBeGreaterThanOrEqual(headBefore);
    const balance = await again.readContract({ address: second.usdc, abi: circleUsdcAbi, functionName: 'balanceOf', args: [buyer.address] });
    expect(balance).toBe(1_000_000_000_000n - msg.amount);
    const logs = await again.getContractEvents({
      address: second.router,
      abi: paymentRouterAbi,
      eventName: 'OrderPaid',
      fromBlock: BigInt(second.router_deploy_block),
    });
    expect(logs.map((l) => l.args.orderId)).toEqual([msg.orderId]);
  });

  it('starts over with a warning when the saved chain state is unusable', async () => {
    await running?.stop();
    running = null;
    const before = JSON.parse(readFileSync(path.join(dataDir, 'devnet.json'), 'utf8')) as DevnetInfo;
    writeFileSync(path.join(dataDir, 'anvil-state.json'), '{"truncated":');
    const warnings: string[] = [];
    running = await startDevnet({ dataDir, port: 0, log: { info: () => {}, warn: (m) => warnings.push(m) } });
    expect(warnings.join('\n')).toMatch(/could not load|unusable/);
    // Same deployer key and nonces on a fresh chain: the contracts land at the same addresses again.
    expect(running.deployed).toBe(true);
    expect(running.info.router).toBe(before.router);
    const client = makePublicClient({ rpcUrl: running.info.rpc_url, chainId: 84532, devnet: true });
    const isSigner = await client.readContract({
      address: running.info.router,
      abi: paymentRouterAbi,
      functionName: 'isSigner',
      args: [privateKeyToAccount(running.secrets.signerPrivateKey).address],
    });
    expect(isSigner).toBe(true);
  });

  it('redeploys the router, saying why, when the saved one runs bytecode other than the artifact (older sources)', async () => {
    const info = running!.info;
    const anvil = makeAnvilClient(info.rpc_url);
    const client = makePublicClient({ rpcUrl: info.rpc_url, chainId: 84532, devnet: true });
    const code = (await client.getCode({ address: info.router }))!;
    expect(runsArtifact(code, paymentRouterBytecode)).toBe(true);
    // The same router with one byte of its compiler metadata changed: as if compiled from other sources.
    const older = `${code.slice(0, -20)}${code.slice(-20, -18) === 'ff' ? '00' : 'ff'}${code.slice(-18)}` as `0x${string}`;
    await anvil.setCode({ address: info.router, bytecode: older });
    expect(runsArtifact(older, paymentRouterBytecode)).toBe(false);
    await running!.stop();
    const warnings: string[] = [];
    running = await startDevnet({ dataDir, port: 0, log: { info: () => {}, warn: (m) => warnings.push(m) } });
    expect(warnings.join('\n')).toMatch(/previous deployment unusable \(the router at 0x[0-9a-fA-F]{40} runs other bytecode than src\/chain\/artifacts\/PaymentRouter\.ts/);
    expect(running.deployed).toBe(true);
    expect(running.info.router).not.toBe(info.router);
    const again = makePublicClient({ rpcUrl: running.info.rpc_url, chainId: 84532, devnet: true });
    expect(runsArtifact((await again.getCode({ address: running.info.router }))!, paymentRouterBytecode)).toBe(true);
  });

  it("deploys Circle's USDC (name USDC, version 2, domain as the token reports it), funds the relayer, and redeploys an older devnet's TestUSDC", async () => {
    const info = running!.info;
    const client = makePublicClient({ rpcUrl: info.rpc_url, chainId: 84532, devnet: true });
    const read = <F extends 'name' | 'version' | 'DOMAIN_SEPARATOR' | 'masterMinter'>(functionName: F) =>
      client.readContract({ address: info.usdc, abi: circleUsdcAbi, functionName });
    expect([await read('name'), await read('version')]).toEqual(['USDC', '2']);
    expect(await read('DOMAIN_SEPARATOR')).toBe(hashDomain({ domain: { name: 'USDC', version: '2', chainId: 84532n, verifyingContract: info.usdc }, types: { EIP712Domain: eip712DomainType } }));
    expect(await client.getBalance({ address: privateKeyToAccount(running!.secrets.relayerPrivateKey).address })).toBeGreaterThan(10n ** 18n);

    // An older devnet: a TestUSDC where devnet.json says the USDC is.
    const deployer = makeWalletClient({ rpcUrl: info.rpc_url, chainId: 84532, devnet: true, account: privateKeyToAccount(running!.secrets.deployerPrivateKey) });
    const hash = await deployer.deployContract({ abi: testUsdcAbi, bytecode: testUsdcBytecode, args: [deployer.account.address] });
    await makeAnvilClient(info.rpc_url).mine({ blocks: 1 });
    const old = (await client.waitForTransactionReceipt({ hash })).contractAddress!;
    writeFileSync(path.join(dataDir, 'devnet.json'), JSON.stringify({ ...info, usdc: old }));
    await running!.stop();
    const warnings: string[] = [];
    running = await startDevnet({ dataDir, port: 0, log: { info: () => {}, warn: (m) => warnings.push(m) } });
    expect(warnings.join('\n')).toMatch(/not Circle's FiatToken/);
    expect(running.deployed).toBe(true);
    expect(running.info.usdc).not.toBe(old);
  });
});
