/**
 * RFC 4180: fields separated by commas, records by CRLF; a field holding a comma, a double quote, CR or LF
 * is enclosed in double quotes with each double quote doubled. null/undefined are empty fields; objects
 * (metadata) are their JSON text.
 */
export function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

export const csvRow = (fields: readonly unknown[]) => `${fields.map(csvField).join(',')}\r\n`;

/**
 * A CSV body streamed page by page: `next(after)` returns the next page of rows (already mapped to fields)
 * and the position to continue after, or null when done. Only one page is in memory at a time, and the next
 * is read only when the consumer pulls (back-pressure from the HTTP response).
 */
export function csvStream<P>(header: readonly string[], next: (after: P | null) => Promise<{ rows: unknown[][]; after: P | null }>): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let after: P | null = null;
  let started = false;
  return new ReadableStream<Uint8Array>({
    // Each pull enqueues something or closes: a pull that did neither would leave the reader waiting forever.
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(enc.encode(csvRow(header)));
        return;
      }
      for (;;) {
        const page = await next(after);
        after = page.after;
        if (page.rows.length > 0) controller.enqueue(enc.encode(page.rows.map(csvRow).join('')));
        if (after === null) return controller.close();
        if (page.rows.length > 0) return;
      }
    },
  }, { highWaterMark: 1 });
}
