import { createRoute } from '@hono/zod-openapi';
import { platformIdOf } from '../middleware/auth.js';
import { access, createRouter, errors, jsonResponse, listEnvelope } from '../openapi.js';
import { Balance, BalanceQuery, BalanceTransaction, BalanceTransactionsQuery, NetVolume, NetVolumeQuery } from '../../modules/balance/schemas.js';

const balance = createRoute({
  method: 'get', path: '/v1/balance', tags: ['Balance'],
  summary: 'Reserve held and releasable (on the indexed chain time), released, refunded and platform fees: platform-wide and per merchant',
  ...access.secretOrSession(), request: { query: BalanceQuery },
  responses: { 200: jsonResponse(Balance, 'Balances'), ...errors(401, 403, 404, 422) },
});
const transactions = createRoute({
  method: 'get', path: '/v1/balance_transactions', tags: ['Balance'],
  summary: 'One row per on-chain money movement (payment legs, refund legs, reserve releases and failures), newest first',
  ...access.secretOrSession(), request: { query: BalanceTransactionsQuery },
  responses: { 200: jsonResponse(listEnvelope(BalanceTransaction, 'BalanceTransactionList'), 'A page of balance transactions'), ...errors(401, 403, 404, 422) },
});
const netVolume = createRoute({
  method: 'get', path: '/v1/balance/net_volume', tags: ['Balance'],
  summary: 'Per UTC day: gross paid volume, refunds and net (gross − refunds) over the last 7, 30 or 90 days',
  ...access.secretOrSession(), request: { query: NetVolumeQuery },
  responses: { 200: jsonResponse(NetVolume, 'Net volume per day'), ...errors(401, 403, 422) },
});

export const balanceRoutes = createRouter()
  .openapi(balance, async (c) => c.json(await c.get('services').balance.get(platformIdOf(c.get('principal')), c.req.valid('query').merchant_id), 200))
  .openapi(transactions, async (c) => c.json(await c.get('services').balance.transactions(platformIdOf(c.get('principal')), c.req.valid('query')), 200))
  .openapi(netVolume, async (c) => c.json(await c.get('services').balance.netVolume(platformIdOf(c.get('principal')), Number(c.req.valid('query').days)), 200));
