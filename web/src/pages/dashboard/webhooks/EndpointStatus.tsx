import { Badge } from '../../../components/ui';

const LABEL: Record<string, string> = { enabled: 'Enabled', paused: 'Paused', disabled: 'Disabled' };

/** An endpoint's status: enabled, paused (by you; events queue) or disabled (by the service, after failures). */
export function EndpointStatus({ status }: { status: string }) {
  return <Badge state={status}>{LABEL[status] ?? status}</Badge>;
}
