import { hashDomain, type Address, type PublicClient } from 'viem';
import { erc20Abi } from '../../../wallet/abi';
import { eip712DomainType } from '../../../../../src/chain/eip712.js';

export type TokenDomain = { name: string; version: string; chainId: number; verifyingContract: Address };

/**
 * The token's EIP-712 domain, read from the token (name(), version(), the chain id, its address) and checked
 * against its DOMAIN_SEPARATOR(): a permit or authorization signed over a wrong domain would only fail on
 * chain. Null when the token does not expose a domain that matches (the page then does not offer permit).
 */
export async function readTokenDomain(client: PublicClient, token: Address, chainId: number): Promise<TokenDomain | null> {
  const read = <T>(functionName: 'name' | 'version' | 'DOMAIN_SEPARATOR') => client.readContract({ address: token, abi: erc20Abi, functionName }) as Promise<T>;
  const [name, version, separator] = await Promise.all([read<string>('name'), read<string>('version').catch(() => null), read<`0x${string}`>('DOMAIN_SEPARATOR').catch(() => null)]);
  const domain = { name, version: version ?? '1', chainId, verifyingContract: token };
  return separator && domainHash(domain) === separator ? domain : null;
}

const domainHash = (domain: TokenDomain) => hashDomain({ domain: { ...domain, chainId: BigInt(domain.chainId) }, types: { EIP712Domain: [...eip712DomainType] } });

/** True when the domain the service sent is the token's own (checked the same way). */
export async function sameAsToken(client: PublicClient, domain: TokenDomain): Promise<boolean> {
  const separator = await client.readContract({ address: domain.verifyingContract, abi: erc20Abi, functionName: 'DOMAIN_SEPARATOR' }).catch(() => null);
  return separator !== null && domainHash(domain) === separator;
}
