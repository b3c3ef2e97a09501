import { SDK_VERSION } from '../core.js';
import { TrisettleError } from '../errors.js';
import type { Event } from '../types.js';

/** One message of GET /v1/events/stream: an event, or `ready` with where the stream starts. */
export type StreamMessage = { kind: 'event'; event: Event } | { kind: 'ready'; after: string | null };

/** Splits server-sent events into messages (`event:` + `data:` lines up to a blank line; comments skipped). */
export function* parseSse(buffer: { text: string }): Generator<{ event: string; data: string }> {
  for (;;) {
    const end = buffer.text.search(/\r?\n\r?\n/);
    if (end < 0) return;
    const block = buffer.text.slice(0, end);
    buffer.text = buffer.text.slice(end + (buffer.text.startsWith('\r\n', end) ? 4 : 2));
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(':')) continue;
      const i = line.indexOf(':');
      const [field, value] = i < 0 ? [line, ''] : [line.slice(0, i), line.slice(i + 1).replace(/^ /, '')];
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length > 0) yield { event, data: data.join('\n') };
  }
}

/**
 * Reads GET /v1/events/stream (after `after` when given) until the server ends it or `signal` aborts. A refused
 * request throws the API's error (TrisettleError, with its status and Retry-After); no answer throws status 0.
 */
export async function* readEventStream(o: { apiBase: string; apiKey: string; after: string | null; signal: AbortSignal }): AsyncGenerator<StreamMessage> {
  const url = new URL('/v1/events/stream', o.apiBase);
  if (o.after) url.searchParams.set('after', o.after);
  let res: Response;
  try {
    res = await fetch(url, { headers: { authorization: `Bearer ${o.apiKey}`, accept: 'text/event-stream', 'user-agent': `trisettle-cli/${SDK_VERSION}` }, signal: o.signal });
  } catch (err) {
    throw new TrisettleError({ message: `no answer from ${url.origin}`, status: 0, type: 'connection_error', code: 'connection_error', cause: err });
  }
  if (!res.ok || !res.body) throw TrisettleError.fromResponse(res, await res.text().catch(() => ''));
  const buffer = { text: '' };
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer.text += decoder.decode(chunk, { stream: true });
      for (const m of parseSse(buffer)) {
        if (m.event === 'ready') yield { kind: 'ready', after: (JSON.parse(m.data) as { after: string | null }).after };
        else yield { kind: 'event', event: JSON.parse(m.data) as Event };
      }
    }
  } catch (err) {
    if (o.signal.aborted) return;
    throw new TrisettleError({ message: 'the event stream broke off', status: 0, type: 'connection_error', code: 'connection_error', cause: err });
  }
}
