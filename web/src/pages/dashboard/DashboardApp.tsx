import { useEffect, type ReactNode } from 'react';
import { Button, Spinner } from '../../components/ui';
import { navigate, useLocation } from '../../lib/router';
import { AuthPage } from './shell/AuthPage';
import { DevelopersPage } from './developers/DevelopersPage';
import { RequestLogsPage } from './developers/RequestLogsPage';
import { EventDetailPage } from './webhooks/EventDetailPage';
import { EventsPage } from './webhooks/EventsPage';
import { BalancesPage } from './balances/BalancesPage';
import './dashboard.css';
import { MerchantDetailPage } from './merchants/MerchantDetailPage';
import { MerchantsPage } from './merchants/MerchantsPage';
import { OrderDetailPage } from './orders/OrderDetailPage';
import { OrdersPage } from './orders/OrdersPage';
import { OverviewPage } from './overview/OverviewPage';
import { PlatformOnboarding } from './shell/PlatformOnboarding';
import { RefundDetailPage } from './refunds/RefundDetailPage';
import { RefundsPage } from './refunds/RefundsPage';
import { SettlementsPage } from './balances/SettlementsPage';
import { useAccount } from './shell/session';
import { SubscriptionDetailPage } from './subscriptions/SubscriptionDetailPage';
import { SubscriptionsPage } from './subscriptions/SubscriptionsPage';
import { ChainClockProvider } from './shell/ChainClock';
import { Shell } from './shell/Shell';
import { DeliveryPage } from './webhooks/DeliveryPage';
import { WebhookDetailPage } from './webhooks/WebhookDetailPage';
import { WebhooksPage } from './webhooks/WebhooksPage';

/** The platform dashboard: / redirects to /dashboard once signed in; every section is a client route. */
export default function DashboardApp() {
  const { path } = useLocation();
  const { session, me } = useAccount();

  useEffect(() => {
    if (session.data && path === '/') navigate('/dashboard', { replace: true });
  }, [session.data, path]);

  if (session.isPending || (session.data && me.isPending)) return <FullPage><Spinner label="Loading dashboard" /></FullPage>;
  if (session.isError) {
    return (
      <FullPage>
        <p>We could not reach Trisettle: {session.error.message}</p>
        <Button onClick={() => session.refetch()}>Try again</Button>
      </FullPage>
    );
  }
  if (!session.data) return <AuthPage />;
  if (me.isError || !me.data) {
    return (
      <FullPage>
        <p>We could not load your account: {me.error?.message ?? 'unknown error'}</p>
        <Button onClick={() => me.refetch()}>Try again</Button>
      </FullPage>
    );
  }
  if (!me.data.onboarded) return <PlatformOnboarding email={session.data.user.email} />;
  return (
    <ChainClockProvider>
      <Shell user={session.data.user} platformName={me.data.platform_name} path={path}>
        <Route path={path} />
      </Shell>
    </ChainClockProvider>
  );
}

function Route({ path }: { path: string }) {
  const p = path.replace(/\/+$/, '') || '/';
  const order = /^\/dashboard\/orders\/([^/]+)$/.exec(p);
  if (order) return <OrderDetailPage id={decodeURIComponent(order[1]!)} />;
  const merchant = /^\/dashboard\/merchants\/([^/]+)$/.exec(p);
  if (merchant) return <MerchantDetailPage id={decodeURIComponent(merchant[1]!)} />;
  const delivery = /^\/dashboard\/webhooks\/deliveries\/([^/]+)$/.exec(p);
  if (delivery) return <DeliveryPage id={decodeURIComponent(delivery[1]!)} />;
  const refund = /^\/dashboard\/refunds\/([^/]+)$/.exec(p);
  if (refund) return <RefundDetailPage id={decodeURIComponent(refund[1]!)} />;
  const log = /^\/dashboard\/developers\/logs(?:\/([^/]+))?$/.exec(p);
  if (log) return <RequestLogsPage requestId={log[1] ? decodeURIComponent(log[1]) : null} />;
  const subscription = /^\/dashboard\/subscriptions\/([^/]+)$/.exec(p);
  if (subscription) return <SubscriptionDetailPage id={decodeURIComponent(subscription[1]!)} />;
  const event = /^\/dashboard\/events\/([^/]+)$/.exec(p);
  if (event) return <EventDetailPage id={decodeURIComponent(event[1]!)} />;
  const endpoint = /^\/dashboard\/webhooks\/([^/]+)$/.exec(p);
  if (endpoint) return <WebhookDetailPage id={decodeURIComponent(endpoint[1]!)} />;
  switch (p) {
    case '/':
    case '/dashboard':
      return <OverviewPage />;
    case '/dashboard/orders':
      return <OrdersPage />;
    case '/dashboard/merchants':
      return <MerchantsPage />;
    case '/dashboard/subscriptions':
      return <SubscriptionsPage />;
    case '/dashboard/refunds':
      return <RefundsPage />;
    case '/dashboard/balances':
      return <BalancesPage />;
    case '/dashboard/settlements':
      return <SettlementsPage />;
    case '/dashboard/webhooks':
      return <WebhooksPage />;
    case '/dashboard/events':
      return <EventsPage />;
    case '/dashboard/developers':
      return <DevelopersPage />;
    default:
      return (
        <div className="page">
          <h1 className="page-title">Page not found</h1>
          <p className="muted">There is no dashboard page at {path}.</p>
        </div>
      );
  }
}

function FullPage({ children }: { children: ReactNode }) {
  return <div className="full-page">{children}</div>;
}
