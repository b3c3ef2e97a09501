import { Alert, Link } from '../../../components/ui';
import { ApiError } from '../../../lib/api';

/** The link from an API error to its entry in Developers → Logs, when the answer carried a request id. */
export function RequestIdLink({ error }: { error: unknown }) {
  if (!(error instanceof ApiError) || !error.requestId) return null;
  return (
    <span className="request-id-link">
      {' '}Request <Link href={`/dashboard/developers/logs/${encodeURIComponent(error.requestId)}`} className="mono-soft">{error.requestId}</Link>
    </span>
  );
}

/** An API error as the dashboard shows it: the message, and the request id linked to the request log. */
export function ApiErrorAlert({ error, title }: { error: Error; title?: string }) {
  return (
    <Alert tone="error" title={title}>
      {error.message}
      <RequestIdLink error={error} />
    </Alert>
  );
}
