import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

type Node = { id: number; callFrame: { functionName: string; url: string }; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };

/** Where a sample's own time goes, by the frame it was taken in (first match wins). */
const CATEGORIES: [string, (fn: string, url: string) => boolean][] = [
  ['idle', (fn) => fn === '(idle)'],
  ['gc', (fn) => fn === '(garbage collector)'],
  ['pg driver', (_, url) => /node_modules\/(pg|pg-protocol|pg-types|pg-pool|postgres-array|kysely)\//.test(url)],
  ['hmac', (fn, url) => /crypto\/hash/.test(url) || fn === 'Hmac' || /webhooks\/sign\.ts/.test(url)],
  ['json', (fn) => fn === 'stringify' || fn === 'parse' || fn === 'JSONStringify'],
  ['http client', (fn, url) => /node:(_http|http|https|net|internal\/(http|streams|stream_base|url|socketaddress|dns))/.test(url)
    || ['writev', 'writeBuffer', 'writeUtf8String', 'close', 'connect'].includes(fn)],
  ['events/timers/ticks', (_, url) => /node:(events|internal\/(timers|process\/task_queues|async_hooks|event_target))|node:timers/.test(url)],
  ['webhooks module', (_, url) => /src\/modules\/webhooks\//.test(url)],
  ['other service code', (_, url) => /\/src\//.test(url)],
];

export type ProfileBreakdown = Record<string, number>;

/**
 * Runs `fn` under V8's CPU profiler (this process only) and returns the self time per category in microseconds
 * per `per` units of work (deliveries), so two runs of different length compare. Writes the raw profile to
 * `file` when given (open it in Chrome DevTools or speedscope).
 */
export async function profileWhile<T>(fn: () => Promise<T>, per: () => number, file?: string): Promise<{ result: T; us_per_unit: ProfileBreakdown }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  let result: T;
  let profile: Profile;
  try {
    result = await fn();
  } finally {
    profile = (await session.post('Profiler.stop')).profile as unknown as Profile;
    session.disconnect();
  }
  if (file) writeFileSync(file, JSON.stringify(profile));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const us: ProfileBreakdown = {};
  for (let i = 0; i < profile.samples.length; i++) {
    const { functionName, url } = byId.get(profile.samples[i]!)!.callFrame;
    const cat = CATEGORIES.find(([, test]) => test(functionName, url))?.[0] ?? 'other (runtime, libraries)';
    us[cat] = (us[cat] ?? 0) + (profile.timeDeltas[i] ?? 0);
  }
  const n = Math.max(1, per());
  const out: ProfileBreakdown = {};
  let busy = 0;
  for (const [k, v] of Object.entries(us).sort((a, b) => b[1] - a[1])) {
    out[k] = Math.round((v / n) * 10) / 10;
    if (k !== 'idle') busy += v;
  }
  out['busy (all but idle)'] = Math.round((busy / n) * 10) / 10;
  return { result: result!, us_per_unit: out };
}
