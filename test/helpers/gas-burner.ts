import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { TestChain } from './chain.js';

/**
 * A 34-byte ERC-1271 wallet that burns gas: whatever it is called with, it loops `slot 0` times (40 gas an
 * iteration; set with anvil_setStorageAt) and then answers `isValidSignature`'s magic value 0x1626ba7e, or
 * 0xffffffff (invalid) for the `valid: false` variant. Runtime code, hand-assembled:
 *   PUSH1 0 SLOAD; loop: JUMPDEST DUP1 ISZERO PUSH1 done JUMPI PUSH1 1 SWAP1 SUB PUSH1 loop JUMP;
 *   done: JUMPDEST POP PUSH4 <answer> PUSH1 224 SHL PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
 */
const code = (answer: string): Hex => `0x6000545b8015601057600190036003565b5063${answer}60e01b60005260206000f3`;

export const GAS_PER_LOOP = 40n;

/** Puts the wallet's code at a fresh address and sets its loop count; returns the address. */
export async function gasBurner(chain: TestChain, loops: bigint, valid = true): Promise<Address> {
  const address = privateKeyToAccount(generatePrivateKey()).address;
  await chain.anvil.setCode({ address, bytecode: code(valid ? '1626ba7e' : 'ffffffff') });
  await setLoops(chain, address, loops);
  return address;
}

export async function setLoops(chain: TestChain, wallet: Address, loops: bigint): Promise<void> {
  await chain.anvil.setStorageAt({ address: wallet, index: 0, value: `0x${loops.toString(16).padStart(64, '0')}` });
}
