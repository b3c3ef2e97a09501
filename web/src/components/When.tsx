import { formatDate, relativeTime } from '../lib/format';
import { useNow } from '../lib/useNow';

/**
 * A date money depends on (a payment deadline, a capture deadline, the next charge, a reserve release), with how far
 * it is from the chain's now: "Jan 15, 2027, 09:00 · in 1 hour". On the devnet the test clock moves that now.
 */
export function When({ iso, testId }: { iso: string | null | undefined; testId?: string }) {
  const now = useNow(15_000);
  if (!iso) return <>—</>;
  return (
    <span className="when" data-testid={testId}>
      {formatDate(iso)} <span className="muted nowrap">· {relativeTime(iso, now)}</span>
    </span>
  );
}
