import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { defineChain, type Address } from 'viem';
import { createConfig, createStorage, injected, unstable_connector, WagmiProvider } from 'wagmi';
import { Alert, Button, Hash, Modal } from '../../../components/ui';
import { api } from '../../../lib/api';
import { chainName, isTestNetwork } from '../../../lib/chains';
import { formatBase, formatHuman } from '../../../lib/money';
import type { Order, Refund } from '../../../lib/types';
import { ConnectedAccount, ConnectWallet } from '../../../wallet/ConnectWallet';
import { useFundRefund, type FundPhase } from './useFundRefund';

function dashboardWagmiConfig(chainId: number) {
  const chain = defineChain({
    id: chainId, name: chainName(chainId), nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [] } }, testnet: isTestNetwork(chainId),
  });
  return createConfig({
    chains: [chain],
    connectors: [injected({ shimDisconnect: true })],
    multiInjectedProviderDiscovery: true,
    // The dashboard knows no RPC URL: wagmi's own reads go through the connected wallet.
    transports: { [chainId]: unstable_connector(injected) },
    storage: createStorage({ storage: window.localStorage, key: 'trisettle.dashboard.wallet' }),
    ssr: false,
  });
}

/** "Pay from wallet": connect, approve what the reserve does not cover, submit refund(), follow it to completion. */
export default function FundRefundModal({ refund, onClose }: { refund: Refund; onClose: () => void }) {
  const chainId = refund.eip712!.domain.chainId;
  const config = useMemo(() => dashboardWagmiConfig(chainId), [chainId]);
  const order = useQuery({ queryKey: ['order', refund.order_id], queryFn: () => api.get<Order>(`/v1/orders/${encodeURIComponent(refund.order_id)}`) });
  const live = useQuery({
    queryKey: ['refunds', 'one', refund.id],
    queryFn: () => api.get<Refund>(`/v1/refunds/${encodeURIComponent(refund.id)}`),
    initialData: refund,
    refetchInterval: (q) => (q.state.data?.state === 'completed' || q.state.data?.state === 'failed' ? false : 2_000),
  });
  return (
    <Modal title="Pay refund from wallet" onClose={onClose} wide>
      <p>
        The order&apos;s reserve covers <strong>{formatBase(refund.reserve_portion)} USDC</strong>; your wallet pays the other{' '}
        <strong>{formatBase(refund.funding_required)} USDC</strong> to the buyer through the payment router on {chainName(chainId)}.
      </p>
      {live.data.state === 'completed' ? (
        <Alert tone="success" title="Refund completed">
          {formatHuman(live.data.amount)} USDC went back to the buyer{live.data.tx_hash && <> in <Hash value={live.data.tx_hash} head={10} tail={8} /></>}.
        </Alert>
      ) : live.data.state === 'failed' ? (
        <Alert tone="error" title="Refund failed">{live.data.failure_reason ?? 'The refund can no longer be executed.'}</Alert>
      ) : order.isError ? (
        <Alert tone="error">{order.error.message}</Alert>
      ) : order.data?.token_address ? (
        <WagmiProvider config={config} reconnectOnMount>
          <FundSteps refund={refund} tokenAddress={order.data.token_address as Address} />
        </WagmiProvider>
      ) : (
        <p className="muted">Loading the order…</p>
      )}
    </Modal>
  );
}

const PHASE_TEXT: Record<FundPhase, string> = {
  idle: '',
  switching: 'Switch the network in your wallet…',
  approving: 'Approve the USDC in your wallet…',
  approve_pending: 'Approval sent; waiting for it to be mined…',
  refunding: 'Confirm the refund in your wallet…',
  refund_pending: 'Refund sent; waiting for it to be mined…',
  mined: 'Refund mined; waiting for Trisettle to record it…',
  failed: '',
};

function FundSteps({ refund, tokenAddress }: { refund: Refund; tokenAddress: Address }) {
  const f = useFundRefund(refund, tokenAddress);
  if (!f.address) return <ConnectWallet intro="Connect the wallet that funds this refund (the platform's or the merchant's)." />;
  const working = !['idle', 'failed', 'mined'].includes(f.progress.phase);
  return (
    <div className="fund-steps">
      <ConnectedAccount />
      {f.wrongChain && <p className="muted">Your wallet is on another network; paying switches it to {chainName(refund.eip712!.domain.chainId)}.</p>}
      <p className="muted" role="status" aria-live="polite">{PHASE_TEXT[f.progress.phase]}</p>
      {f.progress.approveHash && <p>Approval: <Hash value={f.progress.approveHash} head={10} tail={8} /></p>}
      {f.progress.refundHash && <p>Refund transaction: <Hash value={f.progress.refundHash} head={10} tail={8} /></p>}
      <div className="slot">{f.progress.error && <Alert tone="error">{f.progress.error}</Alert>}</div>
      {f.progress.phase !== 'mined' && (
        <Button variant="primary" loading={working} disabled={working} onClick={f.pay}>
          Pay {formatBase(refund.funding_required)} USDC
        </Button>
      )}
    </div>
  );
}
