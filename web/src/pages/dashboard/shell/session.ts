import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError } from '../../../lib/api';
import type { Me, SessionInfo } from '../../../lib/types';

/** The signed-in account (better-auth) and what the API knows about it (/v1/me). */
export function useAccount() {
  const session = useQuery({
    queryKey: ['auth-session'],
    queryFn: () => api.get<SessionInfo>('/api/auth/get-session'),
    staleTime: 60_000,
  });
  const me = useQuery({
    queryKey: ['me'],
    enabled: Boolean(session.data),
    queryFn: () => api.get<Me>('/v1/me'),
    retry: (n, err) => !(err instanceof ApiError && err.status === 401) && n < 2,
  });
  return { session, me };
}

/** Signs out and reloads from /, so nothing of the account stays in memory or in the query cache. */
export function useSignOut() {
  const qc = useQueryClient();
  return async () => {
    try {
      await api.post('/api/auth/sign-out', {});
    } catch {
      // Even if the server did not answer, leave the dashboard; the cookie expires on its own.
    } finally {
      qc.clear();
      window.location.assign('/');
    }
  };
}
