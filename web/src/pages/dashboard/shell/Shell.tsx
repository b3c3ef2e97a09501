import { useState, type ReactNode } from 'react';
import { DevnetBadge } from '../../../components/DevnetBadge';
import { Link, Logo } from '../../../components/ui';
import { ChainClockNote } from './ChainClock';
import { useSignOut } from './session';

const NAV: { href: string; label: string; icon: string }[] = [
  { href: '/dashboard', label: 'Home', icon: 'M3 10.5L10 4l7 6.5V17a1 1 0 01-1 1h-4v-5H8v5H4a1 1 0 01-1-1z' },
  { href: '/dashboard/orders', label: 'Orders', icon: 'M4 4h12v12H4zM7 8h6M7 11h6M7 14h3' },
  { href: '/dashboard/merchants', label: 'Merchants', icon: 'M4 8l1-4h10l1 4M4 8v8h12V8M4 8h12M8 16v-4h4v4' },
  { href: '/dashboard/subscriptions', label: 'Subscriptions', icon: 'M4 10a6 6 0 0110.5-4M16 10a6 6 0 01-10.5 4M14.5 3v3h-3M5.5 17v-3h3' },
  { href: '/dashboard/refunds', label: 'Refunds', icon: 'M6 7h7a4 4 0 010 8H8M6 7l3-3M6 7l3 3' },
  { href: '/dashboard/balances', label: 'Balances', icon: 'M3 7h14v9H3zM3 7l2-3h10l2 3M13 11.5h2' },
  { href: '/dashboard/settlements', label: 'Settlements', icon: 'M4 14l4-4 3 3 5-6M12 7h4v4' },
  { href: '/dashboard/webhooks', label: 'Webhooks', icon: 'M10 4a3 3 0 012.6 4.5L15 12.5M6.5 9.5L4 14a3 3 0 105 2h6M12 16a3 3 0 10-4-4' },
  { href: '/dashboard/events', label: 'Events', icon: 'M4 6h12M4 10h12M4 14h8' },
  { href: '/dashboard/developers', label: 'Developers', icon: 'M7 6l-4 4 4 4M13 6l4 4-4 4' },
];

export function Shell({ user, platformName, path, children }: { user: { name: string; email: string }; platformName: string | null; path: string; children: ReactNode }) {
  const signOut = useSignOut();
  const [open, setOpen] = useState(false);
  const active = (href: string) => (href === '/dashboard' ? path === '/dashboard' || path === '/dashboard/' || path === '/' : path.startsWith(href));
  return (
    <div className={`shell${open ? ' nav-open' : ''}`}>
      <a href="#main" className="skip-link">Skip to content</a>
      <aside className="sidebar">
        <div className="sidebar-head">
          <Logo small />
          <DevnetBadge />
          <ChainClockNote />
        </div>
        {platformName && <div className="platform-name" title={platformName}>{platformName}</div>}
        <nav aria-label="Dashboard" onClick={() => setOpen(false)}>
          <ul>
            {NAV.map((n) => (
              <li key={n.href}>
                <Link href={n.href} className={`nav-link${active(n.href) ? ' active' : ''}`}>
                  <svg viewBox="0 0 20 20" width="18" height="18" aria-hidden="true">
                    <path d={n.icon} fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round" />
                  </svg>
                  <span>{n.label}</span>
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="sidebar-foot">
          <div className="user">
            <span className="user-avatar" aria-hidden="true">{(user.name || user.email).slice(0, 1).toUpperCase()}</span>
            <span className="user-text">
              <span className="user-name">{user.name}</span>
              <span className="user-email">{user.email}</span>
            </span>
          </div>
          <button type="button" className="btn btn-ghost btn-sm signout" onClick={signOut}>
            <span>Sign out</span>
          </button>
        </div>
      </aside>
      <div className="shell-main">
        <header className="topbar">
          <button type="button" className="menu-btn" aria-label="Open navigation" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
            <svg viewBox="0 0 20 20" width="20" height="20" aria-hidden="true"><path d="M3 6h14M3 10h14M3 14h14" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" /></svg>
          </button>
          <Logo small />
          <DevnetBadge />
          <ChainClockNote />
        </header>
        <main id="main" className="content">{children}</main>
      </div>
      {open && <div className="nav-scrim" onClick={() => setOpen(false)} aria-hidden="true" />}
    </div>
  );
}
