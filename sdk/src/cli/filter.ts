/**
 * `--events order.confirmed,refund.*`: exact types, `prefix.*` for a family, `*` for everything. Empty or absent
 * means everything.
 */
export type EventFilter = (type: string) => boolean;

export function parseEventFilter(spec: string | undefined): EventFilter {
  const patterns = (spec ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  if (patterns.length === 0 || patterns.includes('*')) return () => true;
  for (const p of patterns) {
    if (!/^[a-z_]+(\.[a-z_]+)*(\.\*)?$/.test(p)) throw new Error(`--events: "${p}" is not an event type or a pattern like refund.*`);
  }
  return (type) => patterns.some((p) => (p.endsWith('.*') ? type.startsWith(p.slice(0, -1)) : type === p));
}
