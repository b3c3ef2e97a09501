import { useEffect, useState } from 'react';
import { useConnect, useConnection, useConnectors, useDisconnect, type Connector } from 'wagmi';
import { Alert, Button } from '../components/ui';
import { shortHex } from '../lib/format';
import { COINBASE_CONNECTOR_ID } from './coinbase';
import { walletErrorMessage } from './errors';

/**
 * Wallets in this browser that announced themselves (EIP-6963), or the legacy window.ethereum one when none
 * did; and the wallets that need no extension (Coinbase Smart Wallet), offered always.
 */
function useWallets(): { wallets: readonly Connector[]; hosted: readonly Connector[]; searching: boolean } {
  const connectors = useConnectors();
  const [searching, setSearching] = useState(true);
  useEffect(() => {
    const t = window.setTimeout(() => setSearching(false), 700);
    return () => window.clearTimeout(t);
  }, []);
  const hosted = connectors.filter((c) => c.id === COINBASE_CONNECTOR_ID);
  const announced = connectors.filter((c) => c.id !== 'injected' && c.id !== COINBASE_CONNECTOR_ID);
  const legacy = typeof window !== 'undefined' && (window as { ethereum?: unknown }).ethereum !== undefined;
  const wallets = announced.length > 0 ? announced : legacy ? connectors.filter((c) => c.id === 'injected') : [];
  return { wallets, hosted, searching: searching && wallets.length === 0 };
}

const COINBASE_ICON =
  'data:image/svg+xml;base64,' +
  btoa('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="16" fill="#0052ff"/><rect x="11" y="11" width="10" height="10" rx="1.5" fill="#fff"/></svg>');

export function ConnectWallet({ intro }: { intro?: string }) {
  const { wallets, hosted, searching } = useWallets();
  const connect = useConnect();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState<string | null>(null);

  const choose = async (connector: Connector) => {
    setError(null);
    setPending(connector.uid);
    try {
      await connect.mutateAsync({ connector });
    } catch (err) {
      setError(walletErrorMessage(err));
    } finally {
      setPending(null);
    }
  };

  if (searching) {
    return <div className="wallet-list wallet-list-loading" aria-busy="true">Looking for wallets in this browser…</div>;
  }
  const option = (w: Connector) => {
    const coinbase = w.id === COINBASE_CONNECTOR_ID;
    const icon = w.icon ?? (coinbase ? COINBASE_ICON : null);
    return (
      <button key={w.uid} type="button" className="wallet-option" onClick={() => choose(w)} disabled={pending !== null}>
        {icon ? <img src={icon} alt="" width={28} height={28} /> : <span className="wallet-generic" aria-hidden="true" />}
        <span className="wallet-name">{w.id === 'injected' ? 'Browser wallet' : coinbase ? 'Coinbase Smart Wallet' : w.name}</span>
        <span className="wallet-cta">{pending === w.uid ? 'Check your wallet…' : 'Connect'}</span>
      </button>
    );
  };
  return (
    <div className="wallet-list">
      {wallets.length === 0 ? (
        <Alert tone="warning" title="No wallet found in this browser">
          <p>
            Install a browser wallet such as MetaMask, Coinbase Wallet or Rabby, create or import an account, then reload this page.
            On a phone, open this link from inside your wallet app&apos;s browser. {hosted.length > 0 && 'Or use a Coinbase Smart Wallet: it needs no extension.'}
          </p>
        </Alert>
      ) : (
        intro && <p className="muted">{intro}</p>
      )}
      {wallets.map(option)}
      {hosted.map(option)}
      <div className="slot">{error && <Alert tone="error">{error}</Alert>}</div>
    </div>
  );
}

export function ConnectedAccount() {
  const { address, connector } = useConnection();
  const disconnect = useDisconnect();
  if (!address) return null;
  return (
    <div className="account-pill">
      {connector?.icon ? <img src={connector.icon} alt="" width={18} height={18} /> : <span className="dot dot-green" aria-hidden="true" />}
      <span className="mono" title={address}>
        {shortHex(address)}
      </span>
      <Button size="sm" variant="ghost" onClick={() => disconnect.mutate({})}>
        Disconnect
      </Button>
    </div>
  );
}
