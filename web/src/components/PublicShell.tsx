import type { ReactNode } from 'react';
import { DevnetBadge } from './DevnetBadge';
import { Logo } from './ui';

/** What the footer tells the visitor about their money: a buyer paying, a buyer authorizing, a merchant onboarding. */
export type ShellPromise = 'pay' | 'authorize' | 'onboard' | 'subscribe';

const PROMISE: Record<ShellPromise, string> = {
  pay: 'Funds move directly from your wallet to the recipients on-chain',
  authorize: 'Authorized funds wait in the payment contract until captured; what is not captured returns to your wallet',
  onboard: 'Signing proves you own the wallet: it costs nothing and moves no funds',
  subscribe: 'You authorize at most the amount shown once per period, to the recipients shown; you can stop it from your wallet at any time',
};

/** Frame of the public pages (onboarding, checkout): brand bar, a centred column, a trust footer. */
export function PublicShell({ children, aside, context, promise = 'pay' }: { children: ReactNode; aside?: ReactNode; context?: ReactNode; promise?: ShellPromise }) {
  return (
    <div className="public">
      <header className="public-bar">
        <Logo small />
        <DevnetBadge />
        {context && <span className="public-context">{context}</span>}
      </header>
      <main className={`public-main${aside ? ' public-split' : ''}`}>
        {aside && <aside className="public-aside">{aside}</aside>}
        <div className="public-content">{children}</div>
      </main>
      <footer className="public-footer">
        <span>Non-custodial settlement by Trisettle</span>
        <span aria-hidden="true">·</span>
        <span>{PROMISE[promise]}</span>
      </footer>
    </div>
  );
}

/** A whole-page state: expired, used, unknown, done. */
export function StatePanel({ icon, title, children, actions }: { icon: 'clock' | 'check' | 'warning' | 'search' | 'lock'; title: string; children?: ReactNode; actions?: ReactNode }) {
  return (
    <section className="state-panel" aria-live="polite">
      <div className={`state-icon state-icon-${icon}`} aria-hidden="true">
        <StateGlyph icon={icon} />
      </div>
      <h1>{title}</h1>
      {children && <div className="state-text">{children}</div>}
      {actions && <div className="state-actions">{actions}</div>}
    </section>
  );
}

function StateGlyph({ icon }: { icon: string }) {
  const common = { fill: 'none', stroke: 'currentColor', strokeWidth: 2, strokeLinecap: 'round' as const, strokeLinejoin: 'round' as const };
  switch (icon) {
    case 'check':
      return <svg viewBox="0 0 24 24" width="28" height="28"><path d="M5 12.5l4.5 4.5L19 7.5" {...common} /></svg>;
    case 'clock':
      return <svg viewBox="0 0 24 24" width="28" height="28"><circle cx="12" cy="12" r="8.5" {...common} /><path d="M12 7.5V12l3 2" {...common} /></svg>;
    case 'warning':
      return <svg viewBox="0 0 24 24" width="28" height="28"><path d="M12 4l9 16H3z" {...common} /><path d="M12 10v4M12 17.2v.1" {...common} /></svg>;
    case 'lock':
      return <svg viewBox="0 0 24 24" width="28" height="28"><rect x="5" y="11" width="14" height="9" rx="2" {...common} /><path d="M8 11V8a4 4 0 018 0v3" {...common} /></svg>;
    default:
      return <svg viewBox="0 0 24 24" width="28" height="28"><circle cx="11" cy="11" r="6.5" {...common} /><path d="M16 16l4 4" {...common} /></svg>;
  }
}
