import { createRoute } from '@hono/zod-openapi';
import { platformIdOf } from '../middleware/auth.js';
import { access, createRouter, errors, IdempotencyHeader, jsonBody, jsonResponse, z } from '../openapi.js';
import { MAX_ADVANCE_SECONDS } from '../../modules/test-helpers/advance-time.js';

const tags = ['Test helpers'];
const devnetOnly = 'Devnet only: on any other deployment this route answers 404 not_found, as if it did not exist.';

const AdvanceTimeRequest = z.object({
  seconds: z.number().int().min(1).max(MAX_ADVANCE_SECONDS).openapi({ example: 604_800, description: 'How far to move the chain\'s clock (1 s to 365 days)' }),
}).strict().openapi('AdvanceTimeRequest');

const TestClock = z.object({
  chain_time: z.number().int().openapi({ description: 'Unix seconds of the chain\'s latest block' }),
  block_number: z.number().int(),
}).openapi('TestClock');

const AdvancedClock = TestClock.extend({ advanced_by: z.number().int() }).openapi('AdvancedTestClock');

const advance = createRoute({
  method: 'post', path: '/v1/test_helpers/advance_time', tags, summary: 'Move the devnet chain\'s clock forward',
  description: `Increases the chain's time and mines a block, so what depends on the chain's clock happens as it would: orders and checkout sessions expire, authorizations past capture_before are voided, reserves past their hold are released and settled. The devnet chain is shared: at most 10 moves in a row per platform (refilled at 10 a minute) and 30 in total. ${devnetOnly}`,
  ...access.secretOrSession(), request: { headers: IdempotencyHeader, body: jsonBody(AdvanceTimeRequest) },
  responses: { 200: jsonResponse(AdvancedClock, 'The new head'), ...errors(400, 401, 403, 404, 413, 422, 429, 503) },
});
const clock = createRoute({
  method: 'get', path: '/v1/test_helpers/clock', tags, summary: 'Read the devnet chain\'s clock',
  description: devnetOnly,
  ...access.secretOrSession(), request: { query: z.object({}).strict() },
  responses: { 200: jsonResponse(TestClock, 'The latest block'), ...errors(401, 403, 404, 422, 503) },
});

export const testHelperRoutes = createRouter()
  .openapi(advance, async (c) => {
    const body = await c.get('services').testHelpers.advanceTime(platformIdOf(c.get('principal')), c.req.valid('json').seconds);
    return c.json(body, 200);
  })
  .openapi(clock, async (c) => {
    const body = await c.get('services').testHelpers.clock(platformIdOf(c.get('principal')));
    return c.json(body, 200);
  });
