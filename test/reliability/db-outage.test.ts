import { describe, expect, it } from 'vitest';
import { soak } from '../../scripts/soak.js';

/**
 * PostgreSQL taken away under load: two real service processes, the test database refusing connections
 * and every backend of it terminated (what a restart looks like to the service; the machine's cluster
 * itself is left alone), for 4 s in the middle of a 25 s soak. /health answers 503 while it lasts and 200
 * by itself afterwards; requests get 503 service_unavailable (not 500); clients retrying with their
 * Idempotency-Key get every order exactly once; nothing paid is lost; no process dies.
 */
describe('PostgreSQL away under load', () => {
  it('answers 503 while it lasts, recovers by itself, and loses or doubles nothing', async () => {
    const report = await soak({ seconds: 25, rate: 2, dbOutageAt: 8, dbOutageSeconds: 4, log: () => {} });
    expect(report.problems, JSON.stringify({ ...report, statuses: report.statuses })).toEqual([]);
    expect(report.health.downSeen).toBe(true);
    expect(report.health.recoveredAfterMs).toBeLessThan(10_000);
    expect(report.statuses.network ?? 0).toBe(0); // no instance died
    expect(Object.keys(report.statuses).filter((k) => / 500$/.test(k))).toEqual([]);
    expect(Object.entries(report.statuses).filter(([k]) => / 503$/.test(k)).reduce((s, [, n]) => s + n, 0)).toBeGreaterThan(0);
    expect(report.ordersAcknowledged).toBe(report.ordersIntended);
    expect(report.ordersInDb).toBe(report.ordersAcknowledged);
    expect(report.confirmed).toBe(report.paid);
    expect(report.received.duplicates).toBe(0);
  }, 150_000);
});
