import { useMemo } from 'react';
import { WagmiProvider } from 'wagmi';
import { makeWagmiConfig } from '../../wallet/config';
import { OnboardPage } from './OnboardPage';

/** Onboarding only signs a message, so any chain will do for the wallet config. */
export default function OnboardApp({ token }: { token: string }) {
  const config = useMemo(() => makeWagmiConfig(), []);
  return (
    <WagmiProvider config={config} reconnectOnMount>
      <OnboardPage token={token} />
    </WagmiProvider>
  );
}
