import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '../../../components/ui';
import { api, type Query } from '../../../lib/api';
import type { List } from '../../../lib/types';
import { pagerLabel } from './pager-label.js';

/** Cursor pagination over a list endpoint; the cursor stack resets when the filters change. `refetchInterval`: poll the page shown. */
export function usePaged<T>(key: string, path: string, query: Query = {}, limit = 20, opts: { refetchInterval?: number | false; enabled?: boolean } = {}) {
  const filterKey = JSON.stringify(query);
  const [state, setState] = useState<{ filterKey: string; cursors: (string | null)[] }>({ filterKey, cursors: [null] });
  const cursors = state.filterKey === filterKey ? state.cursors : [null];
  const cursor = cursors[cursors.length - 1] ?? null;
  const q = useQuery({
    queryKey: [key, query, cursor, limit],
    queryFn: () => api.get<List<T>>(path, { ...query, limit, cursor }),
    placeholderData: keepPreviousData,
    refetchInterval: opts.refetchInterval ?? false,
    enabled: opts.enabled ?? true,
  });
  return {
    query: q,
    rows: q.data?.data ?? [],
    page: cursors.length,
    hasPrev: cursors.length > 1,
    hasNext: Boolean(q.data?.has_more && q.data.next_cursor),
    next: () => q.data?.next_cursor && setState({ filterKey, cursors: [...cursors, q.data.next_cursor] }),
    prev: () => setState({ filterKey, cursors: cursors.slice(0, -1) }),
  };
}


export function Pager({ page, hasPrev, hasNext, onPrev, onNext, count, loading }: { page: number; hasPrev: boolean; hasNext: boolean; onPrev: () => void; onNext: () => void; count: number; loading?: boolean }) {
  return (
    <div className="pager">
      <span className="muted" data-testid="pager-count">{loading ? 'Loading…' : pagerLabel(page, count, hasPrev, hasNext)}</span>
      <div className="pager-buttons">
        <Button size="sm" onClick={onPrev} disabled={!hasPrev}>Previous</Button>
        <Button size="sm" onClick={onNext} disabled={!hasNext}>Next</Button>
      </div>
    </div>
  );
}
