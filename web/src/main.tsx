import './styles.css';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { useLocation } from './lib/router';

/**
 * One bundle, three surfaces: /onboard/<token> (merchant), /checkout/<token> (buyer), /subscribe/<token>[/manage] (subscriber) and the platform
 * dashboard at / and /dashboard/*. Each surface is its own chunk, so a buyer never downloads the dashboard.
 */
const OnboardApp = lazy(() => import('./pages/onboard/OnboardApp'));
const CheckoutPage = lazy(() => import('./pages/checkout/CheckoutPage').then((m) => ({ default: m.CheckoutPage })));
const SubscribePage = lazy(() => import('./pages/subscribe/SubscribePage').then((m) => ({ default: m.SubscribePage })));
const DashboardApp = lazy(() => import('./pages/dashboard/DashboardApp'));

const queryClient = new QueryClient({
  defaultOptions: { queries: { staleTime: 5_000, refetchOnWindowFocus: false, retry: 1 } },
});

function Root() {
  const { path } = useLocation();
  const onboard = /^\/onboard\/([^/]+)\/?$/.exec(path);
  const checkout = /^\/checkout\/([^/]+)\/?$/.exec(path);
  const subscribe = /^\/subscribe\/([^/]+)(\/manage)?\/?$/.exec(path);
  return (
    <Suspense fallback={<div className="boot" aria-busy="true" />}>
      {onboard ? (
        <OnboardApp token={decodeURIComponent(onboard[1]!)} />
      ) : checkout ? (
        <CheckoutPage token={decodeURIComponent(checkout[1]!)} />
      ) : subscribe ? (
        <SubscribePage token={decodeURIComponent(subscribe[1]!)} manage={Boolean(subscribe[2])} />
      ) : (
        <DashboardApp />
      )}
    </Suspense>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <Root />
    </QueryClientProvider>
  </StrictMode>,
);
