import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPublicClient, encodeFunctionData, getAddress, http } from 'viem';
import { startAnvil, type AnvilHandle } from '../../src/chain/anvil.js';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { subscriptionManagerAbi } from '../../src/chain/artifacts/SubscriptionManager.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });
const run = promisify(execFile);

// anvil's well-known dev accounts 0..4 (never real keys).
const DEPLOYER_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const DEPLOYER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const [OWNER, SIGNER, OPERATOR, TREASURY] = [
  '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
];

let node: AnvilHandle;
beforeAll(async () => {
  node = await startAnvil({ port: 0, chainId: 84532, blockTime: 1 });
});
afterAll(async () => {
  await node?.stop();
});

const deploy = (args: string[], env: Record<string, string>) =>
  run(process.execPath, ['--import', 'tsx', 'scripts/deploy.ts', ...args], { env: { ...process.env, ...env } });

describe('npm run deploy', () => {
  it('deploys the router from env settings and prints the env line to set', async () => {
    const { stdout } = await deploy(['--confirmations', '1'], {
      RPC_URL: node.rpcUrl,
      DEPLOYER_PRIVATE_KEY: DEPLOYER_KEY,
      OWNER: OWNER!,
      SIGNER_ADDRESS: SIGNER!,
      OPERATOR_ADDRESS: OPERATOR!,
      SERVICE_TREASURY: TREASURY!,
    });
    expect(stdout).toMatch(/^ROUTER_ADDRESS_84532=0x[0-9a-fA-F]{40}$/m);
    expect(stdout).toMatch(/^SUBSCRIPTION_MANAGER_ADDRESS_84532=0x[0-9a-fA-F]{40}$/m);
    // The deployer is not the owner (a multisig): it prints the owner's setModule call instead of sending it.
    const manager = /^SUBSCRIPTION_MANAGER_ADDRESS_84532=(0x[0-9a-fA-F]{40})$/m.exec(stdout)![1]!;
    const data = encodeFunctionData({ abi: paymentRouterAbi, functionName: 'setModule', args: [getAddress(manager), true] });
    expect(stdout).toContain(`data ${data}`);
  });

  it('registers the SubscriptionManager on the router when the deployer is the owner', async () => {
    const { stdout } = await deploy(['--rpc-url', node.rpcUrl, '--owner', DEPLOYER, '--signer', SIGNER!, '--operator', OPERATOR!, '--treasury', TREASURY!, '--confirmations', '1'], {
      DEPLOYER_PRIVATE_KEY: DEPLOYER_KEY,
    });
    const router = getAddress(/^ROUTER_ADDRESS_84532=(0x[0-9a-fA-F]{40})$/m.exec(stdout)![1]!);
    const manager = getAddress(/^SUBSCRIPTION_MANAGER_ADDRESS_84532=(0x[0-9a-fA-F]{40})$/m.exec(stdout)![1]!);
    expect(stdout).not.toContain('must register');
    const client = createPublicClient({ transport: http(node.rpcUrl) });
    expect(await client.readContract({ address: router, abi: paymentRouterAbi, functionName: 'isModule', args: [manager] })).toBe(true);
    expect(await client.readContract({ address: manager, abi: subscriptionManagerAbi, functionName: 'router' })).toBe(router);
  });

  it('refuses to run without the deployer key, naming the variable', async () => {
    const err = await deploy(['--rpc-url', node.rpcUrl], { DEPLOYER_PRIVATE_KEY: '' }).catch((e: { stderr: string }) => e);
    expect((err as { stderr: string }).stderr).toContain('DEPLOYER_PRIVATE_KEY');
  });
});
