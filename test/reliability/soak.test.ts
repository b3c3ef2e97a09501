import { describe, expect, it } from 'vitest';
import { soak } from '../../scripts/soak.js';

/**
 * `npm run soak` for 30 s (SOAK_SECONDS): two real service processes on one PostgreSQL database and one
 * anvil, orders through both, each paid on chain, confirmed and delivered by webhook. Always on
 * PostgreSQL: two processes cannot share an embedded PGlite.
 */
describe('soak (two instances, one database, one chain)', () => {
  it('accounts for every order, event and delivery, answers only expected 4xx and keeps memory flat', async () => {
    const report = await soak({ seconds: Number(process.env.SOAK_SECONDS ?? 30), rate: 2, log: () => {} });
    expect(report.problems, JSON.stringify({ ...report, statuses: report.statuses })).toEqual([]);
    expect(report.unexpected).toEqual([]);
    expect(report.ordersAcknowledged).toBe(report.ordersIntended);
    expect(report.ordersIntended).toBeGreaterThanOrEqual(50);
    expect(report.ordersInDb).toBe(report.ordersAcknowledged);
    expect(report.paid).toBe(report.ordersAcknowledged);
    expect(report.confirmed).toBe(report.paid);
    expect(report.confirmedEvents).toBe(report.paid);
    expect(report.received).toMatchObject({ requests: report.paid, distinctEvents: report.paid, duplicates: 0 });
    expect(Object.keys(report.statuses).filter((k) => / 5\d\d$/.test(k) || k === 'network')).toEqual([]);
  }, 150_000);
});
