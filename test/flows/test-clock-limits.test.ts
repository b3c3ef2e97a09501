import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IN_TOTAL, PER_PLATFORM } from '../../src/modules/test-helpers/advance-time.js';
import { createFlow, type Flow } from '../helpers/flow.js';

/**
 * The devnet's test clock is a public door that spends the node's work (two RPCs and a mined block a call): each
 * platform may move it PER_PLATFORM.burst times in a row, all of them together IN_TOTAL.burst. Attacked here on a
 * real anvil with a flood of concurrent calls, from one platform and from several at once.
 */
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const STEP = 10_000; // seconds per call: a call too many would show as 10,000 s more on the chain's clock
let f: Flow;
beforeAll(async () => { f = await createFlow({ buyers: 1 }); });
afterAll(async () => { await f?.close(); });

const chainTime = async () => Number((await f.chain.publicClient.getBlock({ blockTag: 'latest' })).timestamp);
const advance = (key: string) => f.h.request('POST', '/v1/test_helpers/advance_time', { key, body: { seconds: STEP } });
/** What a token bucket may have let through in `ms`: the burst and its refill. */
const bound = (policy: { burst: number; perSecond: number }, ms: number) => policy.burst + Math.floor((ms / 1000) * policy.perSecond) + 1;

describe('test clock under a flood', () => {
  it('one platform: 40 concurrent calls move the clock at most the burst, the rest are 429 and move nothing', async () => {
    expect(f.h.config.env).toBe('devnet');
    const p = await f.h.platform();
    const t0 = await chainTime();
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 40 }, () => advance(p.secretKey)));
    const elapsed = Date.now() - started;
    const ok = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status === 429);
    expect(ok.length + refused.length).toBe(40);
    expect(ok.length).toBeGreaterThanOrEqual(PER_PLATFORM.burst);
    expect(ok.length).toBeLessThanOrEqual(bound(PER_PLATFORM, elapsed));
    expect(refused[0]!.body.error).toMatchObject({ code: 'rate_limited' });
    expect(JSON.stringify(refused[0]!.body)).not.toMatch(/at .*\.ts:\d+/);
    // Every accepted call moved the chain by STEP, no refused one did: the chain's own clock says how many went through.
    const moved = (await chainTime()) - t0;
    expect(moved).toBeGreaterThanOrEqual(ok.length * STEP);
    expect(moved).toBeLessThan((ok.length + 1) * STEP);
    // The platform's next call is still refused: the flood spent its bucket.
    expect((await advance(p.secretKey)).status).toBe(429);
  });

  it('many platforms at once: together they move the clock at most the total burst', async () => {
    const platforms = await Promise.all(Array.from({ length: 6 }, () => f.h.platform()));
    // The total bucket refills at IN_TOTAL.perSecond: wait until it is full again after the first test.
    await new Promise((r) => setTimeout(r, (IN_TOTAL.burst / IN_TOTAL.perSecond) * 1000));
    const t0 = await chainTime();
    const started = Date.now();
    const answers = await Promise.all(platforms.flatMap((p) => Array.from({ length: PER_PLATFORM.burst }, () => advance(p.secretKey))));
    const elapsed = Date.now() - started;
    const ok = answers.filter((r) => r.status === 200).length;
    expect(answers.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    // 60 calls, each platform within its own burst: only the total bound stops them.
    expect(ok).toBeGreaterThanOrEqual(IN_TOTAL.burst);
    expect(ok).toBeLessThanOrEqual(bound(IN_TOTAL, elapsed));
    const moved = (await chainTime()) - t0;
    expect(moved).toBeGreaterThanOrEqual(ok * STEP);
    expect(moved).toBeLessThan((ok + 1) * STEP);
  });

  it('the clock read and bad input spend nothing: 422 for a step out of range, unchanged chain time', async () => {
    const p = await f.h.platform();
    const t0 = await chainTime();
    for (const seconds of [0, -5, 1.5, 31_536_001, '60']) {
      const res = await f.h.request('POST', '/v1/test_helpers/advance_time', { key: p.secretKey, body: { seconds } });
      expect(res.status, JSON.stringify(seconds)).toBe(422);
    }
    const clock = await f.h.request('GET', '/v1/test_helpers/clock', { key: p.secretKey });
    expect(clock.status).toBe(200);
    expect(clock.body.chain_time - t0).toBeLessThan(STEP);
  });
});
