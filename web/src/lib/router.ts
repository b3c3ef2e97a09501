import { useEffect, useSyncExternalStore, type MouseEvent } from 'react';

/** A tiny history router: the server answers index.html for every page path, the client picks the page. */
const listeners = new Set<() => void>();

function subscribe(fn: () => void) {
  listeners.add(fn);
  window.addEventListener('popstate', fn);
  return () => {
    listeners.delete(fn);
    window.removeEventListener('popstate', fn);
  };
}

const snapshot = () => window.location.pathname + window.location.search;

export function useLocation(): { path: string; search: URLSearchParams } {
  const full = useSyncExternalStore(subscribe, snapshot);
  const [path = '/', query = ''] = full.split('?');
  return { path, search: new URLSearchParams(query) };
}

export function navigate(to: string, opts: { replace?: boolean } = {}) {
  if (to === snapshot()) return;
  if (opts.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.scrollTo(0, 0);
  for (const fn of listeners) fn();
}

/** Click handler for <a href>: client-side navigation for plain left clicks, the browser's for the rest. */
export function linkClick(e: MouseEvent<HTMLAnchorElement>) {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const href = e.currentTarget.getAttribute('href');
  if (!href || !href.startsWith('/') || e.currentTarget.target) return;
  e.preventDefault();
  navigate(href);
}

export function useTitle(title: string) {
  useEffect(() => {
    document.title = title ? `${title} · Trisettle` : 'Trisettle';
  }, [title]);
}
