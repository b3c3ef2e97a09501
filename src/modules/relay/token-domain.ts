import { getAddress, hashDomain, parseAbi, type Address, type PublicClient } from 'viem';
import { eip712DomainType } from '../../chain/eip712.js';

export type TokenDomain = { name: string; version: string; chainId: number; verifyingContract: Address };

const domainAbi = parseAbi(['function name() view returns (string)', 'function version() view returns (string)', 'function DOMAIN_SEPARATOR() view returns (bytes32)']);

/**
 * The token's EIP-712 domain, read from the token (name(), version(), the chain id, its address) and checked
 * against its DOMAIN_SEPARATOR(): never hard-coded. Cached per chain and token (a token's domain does not
 * change; a failed read is not cached). Throws when the token does not expose one that matches.
 */
export function createTokenDomains() {
  const cache = new Map<string, Promise<TokenDomain>>();

  async function read(client: PublicClient, chainId: number, token: Address): Promise<TokenDomain> {
    const [name, version, separator] = await Promise.all([
      client.readContract({ address: token, abi: domainAbi, functionName: 'name' }),
      client.readContract({ address: token, abi: domainAbi, functionName: 'version' }),
      client.readContract({ address: token, abi: domainAbi, functionName: 'DOMAIN_SEPARATOR' }),
    ]);
    const domain: TokenDomain = { name, version, chainId, verifyingContract: getAddress(token) };
    const expected = hashDomain({ domain: { ...domain, chainId: BigInt(chainId) }, types: { EIP712Domain: eip712DomainType } });
    if (expected !== separator) throw new Error(`token ${token} on chain ${chainId}: DOMAIN_SEPARATOR() does not match name()/version()`);
    return domain;
  }

  return {
    get(client: PublicClient, chainId: number, token: Address): Promise<TokenDomain> {
      const key = `${chainId}:${token.toLowerCase()}`;
      let p = cache.get(key);
      if (!p) {
        p = read(client, chainId, token);
        cache.set(key, p);
        p.catch(() => cache.delete(key));
      }
      return p;
    },
  };
}

export type TokenDomains = ReturnType<typeof createTokenDomains>;
