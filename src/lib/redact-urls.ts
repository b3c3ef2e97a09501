/**
 * RPC URLs carry provider API keys (in the path, the query or the user info): no part of one may reach a
 * log line, an error column, `/_/indexer/status` or a metric. Every configured RPC URL is registered at
 * start (production only: the devnet's loopback RPC is printed on purpose); `scrubText` removes the URL, its
 * host and each secret-looking piece of it from any text. The logger applies it to every line it writes (lib/logger.ts), and
 * `describeError` is what workers store and log instead of `err.message` (viem puts the URL in it).
 */
const fragments = new Set<string>();
let ordered: string[] = [];

/** Pieces of a URL that must never be shown: the URL itself, its host, user info, and long path/query parts. */
export function secretFragmentsOf(url: string): string[] {
  const out = new Set<string>([url, url.replace(/\/+$/, '')]);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [...out].filter(Boolean);
  }
  out.add(parsed.host);
  out.add(parsed.hostname);
  if (parsed.username) out.add(parsed.username);
  if (parsed.password) out.add(parsed.password);
  for (const seg of parsed.pathname.split('/')) if (seg.length >= 6) out.add(decodeURIComponent(seg));
  for (const [, value] of parsed.searchParams) if (value.length >= 6) out.add(value);
  // Loopback and bare IPs are not secrets, but a scrubbed line is still clearer than a leaked key.
  return [...out].filter((f) => f.length >= 4);
}

export function registerSecretUrls(urls: Iterable<string>): void {
  for (const url of urls) for (const f of secretFragmentsOf(url)) fragments.add(f);
  // Longest first, so a URL is replaced whole before its host is.
  ordered = [...fragments].sort((a, b) => b.length - a.length);
}

const ANY_URL = /\b(?:https?|wss?):\/\/[^\s"'<>)\]]+/gi;

/** Removes every registered fragment (what the logger applies to each line). */
export function scrubText(text: string): string {
  let out = text;
  for (const f of ordered) if (out.includes(f)) out = out.split(f).join('[rpc]');
  return out;
}

/**
 * One line that says what went wrong without any URL: viem's short message and, where the provider gave
 * one, its reason ("header not found", "execution reverted"), never the request body or any URL.
 */
export function describeError(err: unknown, max = 300): string {
  const e = err as { shortMessage?: string; message?: string; details?: string } | null;
  const reason = e?.shortMessage ?? e?.message ?? String(err);
  const details = e?.shortMessage && e.details && !reason.includes(e.details) ? `: ${e.details}` : '';
  return scrubText(`${reason.split('\n')[0]}${details.split('\n')[0]}`).replace(ANY_URL, '[url]').slice(0, max);
}
