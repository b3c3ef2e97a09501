import {
  BaseError,
  encodeDeployData,
  erc6492SignatureValidatorAbi,
  erc6492SignatureValidatorByteCode,
  ExecutionRevertedError,
  hashMessage,
  isAddressEqual,
  RawContractError,
  recoverAddress,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { AppError } from '../../lib/errors.js';

/**
 * Did `wallet` sign `message` (EIP-191 personal_sign text)? One answer for three kinds of wallet:
 *
 * - an EOA: the signature recovers to the wallet. Checked locally first, no RPC.
 * - a deployed contract wallet: ERC-1271 `isValidSignature(hashMessage(message), signature)`.
 * - a counterfactual contract wallet: an ERC-6492 wrapped signature (factory, factory calldata, inner
 *   ERC-1271 signature) whose factory call would deploy the wallet at this address.
 *
 * `chain` gives the invitation's chain client, asked for only when the signature is not an EOA's (so an EOA
 * completes even where that chain has no RPC configured). The two contract cases run through viem's ERC-6492 universal validator as a deployless `eth_call`
 * (constructor-only bytecode, nothing is sent, nothing is deployed) against the invitation's chain.
 * The validator also recovers plain ECDSA when the address has no code.
 *
 * viem's own `verifyHash` answers `false` for any failing `eth_call`, an unreachable RPC included, so
 * it cannot tell a bad signature from a down node. Here only a revert (or a `false` result) is a bad
 * signature; any other failure is 503 service_unavailable and the caller changes nothing.
 */
export function verifyWalletSignature(chain: () => PublicClient, wallet: Address, message: string, signature: Hex): Promise<boolean> {
  return verifyHashSignature(chain, wallet, hashMessage(message), signature);
}

/**
 * The same three cases for any 32-byte digest (an EIP-712 hash: the gasless relay's ReceiveWithAuthorization).
 * `gas`: the most the validator's eth_call may burn (the relay's ceiling); a wallet that needs more is not valid.
 */
export async function verifyHashSignature(chain: () => PublicClient, wallet: Address, hash: Hex, signature: Hex, gas?: bigint): Promise<boolean> {
  if (signature.length === 132) {
    try {
      if (isAddressEqual(await recoverAddress({ hash, signature }), wallet)) return true;
    } catch {
      // not a well-formed ECDSA signature: a contract wallet may still accept it
    }
  }
  const client = chain(); // 422 unsupported_chain when the invitation's chain has no RPC here
  let data: Hex | undefined;
  try {
    ({ data } = await client.call({
      gas,
      data: encodeDeployData({
        abi: erc6492SignatureValidatorAbi,
        bytecode: erc6492SignatureValidatorByteCode,
        args: [wallet, hash, signature],
      }),
    }));
  } catch (err) {
    if (isRevert(err)) return false;
    // Out of the gas it was given: a wallet that needs more than the cap does not sign within it.
    if (gas !== undefined && err instanceof BaseError && /out of gas|outofgas/i.test(`${err.details ?? ''} ${err.shortMessage}`)) return false;
    // The cause is not echoed: this endpoint is public and RPC errors carry provider details.
    throw new AppError('service_unavailable', 'The chain could not be reached to verify the signature; nothing was changed, try again.');
  }
  // The validator returns one byte, 0x01 for valid (solidity `return` of a bool, unpadded).
  return data !== undefined && /^0x0*1$/.test(data);
}

function isRevert(err: unknown): boolean {
  if (!(err instanceof BaseError)) return false;
  return Boolean(err.walk((e) => e instanceof ExecutionRevertedError || e instanceof RawContractError));
}
