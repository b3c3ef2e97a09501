import { useEffect, useState } from 'react';
import { useConnect, useConnection, useConnectors, useDisconnect, type Connector } from 'wagmi';
import { Alert, Button } from '../components/ui';
import { shortHex } from '../lib/format';
import { walletErrorMessage } from './errors';

/** Wallets that announced themselves (EIP-6963), or the legacy window.ethereum one when none did. */
function useWallets(): { wallets: readonly Connector[]; searching: boolean } {
  const connectors = useConnectors();
  const [searching, setSearching] = useState(true);
  useEffect(() => {
    const t = window.setTimeout(() => setSearching(false), 700);
    return () => window.clearTimeout(t);
  }, []);
  const announced = connectors.filter((c) => c.id !== 'injected');
  const legacy = typeof window !== 'undefined' && (window as { ethereum?: unknown }).ethereum !== undefined;
  const wallets = announced.length > 0 ? announced : legacy ? connectors.filter((c) => c.id === 'injected') : [];
  return { wallets, searching: searching && wallets.length === 0 };
}

export function ConnectWallet({ intro }: { intro?: string }) {
  const { wallets, searching } = useWallets();
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
  if (wallets.length === 0) {
    return (
      <Alert tone="warning" title="No wallet found in this browser">
        <p>
          Install a browser wallet such as MetaMask, Coinbase Wallet or Rabby, create or import an account, then reload this page.
          On a phone, open this link from inside your wallet app&apos;s browser.
        </p>
      </Alert>
    );
  }
  return (
    <div className="wallet-list">
      {intro && <p className="muted">{intro}</p>}
      {wallets.map((w) => (
        <button key={w.uid} type="button" className="wallet-option" onClick={() => choose(w)} disabled={pending !== null}>
          {w.icon ? <img src={w.icon} alt="" width={28} height={28} /> : <span className="wallet-generic" aria-hidden="true" />}
          <span className="wallet-name">{w.id === 'injected' ? 'Browser wallet' : w.name}</span>
          <span className="wallet-cta">{pending === w.uid ? 'Check your wallet…' : 'Connect'}</span>
        </button>
      ))}
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
