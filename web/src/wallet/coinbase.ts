import { createConnector, type CreateConnectorFn } from 'wagmi';
import { coinbaseWallet } from 'wagmi/connectors';

export const COINBASE_CONNECTOR_ID = 'coinbaseWalletSDK';

/**
 * Coinbase Wallet through wagmi's connector and Coinbase's SDK, smart wallet only: the Coinbase Smart Wallet
 * popup (keys.coinbase.com, passkey, no extension). The Coinbase Wallet browser extension, like every
 * injected wallet, is already offered through EIP-6963 discovery. Loaded lazily: wagmi's reconnect asks every
 * connector for its provider when the page mounts, and creating the SDK fetches (the page's origin, for its
 * COOP check) and later talks to Coinbase, so the SDK chunk is loaded only once the buyer picks Coinbase
 * Wallet, or picked it on an earlier visit (wagmi's recentConnectorId).
 */
export function lazyCoinbaseWallet(appName: string): CreateConnectorFn {
  const create = coinbaseWallet({ appName, preference: { options: 'smartWalletOnly' } });
  return createConnector((config) => {
    const inner = create(config);
    let wanted = false;
    const allowed = async () => wanted || (await config.storage?.getItem('recentConnectorId')) === COINBASE_CONNECTOR_ID;
    return {
      ...inner,
      // wagmi hides EIP-6963 wallets whose rdns a configured connector claims: without this the Coinbase Wallet
      // extension (com.coinbase.wallet) would vanish behind this smart-wallet-only connector.
      rdns: undefined,
      async connect(parameters) {
        wanted = true;
        return inner.connect.call(this, parameters);
      },
      async getProvider() {
        if (!(await allowed())) return undefined as never;
        return inner.getProvider.call(this);
      },
      async isAuthorized() {
        return (await allowed()) && inner.isAuthorized.call(this);
      },
    } as typeof inner;
  });
}
