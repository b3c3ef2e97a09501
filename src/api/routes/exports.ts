import { createRoute } from '@hono/zod-openapi';
import { platformIdOf } from '../middleware/auth.js';
import { access, createRouter, errors, z } from '../openapi.js';
import { EXPORT_KINDS, type ExportKind } from '../../modules/exports/index.js';

const Iso = z.string().datetime({ offset: true });
const ExportQuery = z
  .object({
    from: Iso.optional().openapi({ description: 'At or after (ISO-8601): created_at, or block_time for balance_transactions' }),
    to: Iso.optional().openapi({ description: 'Strictly before (ISO-8601)' }),
  })
  .strict();

const route = (kind: ExportKind) => createRoute({
  method: 'get', path: `/v1/exports/${kind}.csv`, tags: ['Exports'],
  summary: `CSV of ${kind.replace('_', ' ')} over a date range, newest first (RFC 4180, amounts in human units, ISO-8601 UTC times), streamed`,
  description: 'A text cell that starts with =, +, -, @, tab or CR is written with a leading \' so that spreadsheets show it as text instead of running it as a formula; amounts, counts and times are never changed.',
  ...access.secretOrSession(), request: { query: ExportQuery },
  responses: { 200: { description: 'text/csv; header row first', content: { 'text/csv': { schema: z.string() } } }, ...errors(401, 403, 422) },
});

export const exportRoutes = createRouter();
for (const kind of EXPORT_KINDS) {
  exportRoutes.openapi(route(kind), (c) => {
    const body = c.get('services').exports.stream(kind, platformIdOf(c.get('principal')), c.req.valid('query'));
    return c.body(body, 200, {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${kind}.csv"`,
      'Cache-Control': 'no-store',
    });
  });
}
