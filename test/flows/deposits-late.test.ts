import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { depositDriver } from '../helpers/deposit-flow.js';
import { balanceOf, createFlow, freshAddress, setupPlatform, type Flow } from '../helpers/flow.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

/** docs/deposits.md "Late payment": a checkout session's late_payment decides what a transfer after its expiry gets. */
for (const DEPTH of [2, 20]) describe(`deposit addresses: late payment on checkout sessions (anvil, Circle USDC, confirmations ${DEPTH})`, () => {
let f: Flow;
let key: string;
let merchantId: string;
let wallets: { treasury: Address; platform: Address; merchant: Address; router: Address };
const GRACE = 3600;
const relayerKey = generatePrivateKey();
beforeAll(async () => {
  f = await createFlow({ confirmations: DEPTH, config: { relayerPrivateKey: relayerKey, depositMinSweep: 1_000n, depositLateGraceSeconds: GRACE } });
  await f.chain.anvil.setBalance({ address: privateKeyToAccount(relayerKey).address, value: 10n ** 20n });
  const s = await setupPlatform(f.h);
  key = s.p.secretKey;
  merchantId = s.m.external_id;
  wallets = { treasury: f.chain.treasury, platform: s.platformWallet, merchant: s.merchantWallet, router: f.chain.router };
});
afterAll(async () => f?.close());

const { send, settleExpiring, chainNow, returnsOf, eventsOf } = depositDriver(() => f, DEPTH);

let seq = 0;
/** A 60 s session (the minimum, on the chain clock) with its deposit address chosen on the hosted page (public route). */
async function depositSession(extra: Record<string, unknown> = {}) {
  f.h.services.chains.get(84532).clock.observe(BigInt(await chainNow()));
  const s = await f.h.request('POST', '/v1/checkout/sessions', {
    key, body: { merchant_id: merchantId, order_no: `dep_late_${++seq}`, chain_id: 84532, token: 'USDC', amount: '10.00', expires_in_seconds: 60, ...extra },
  });
  expect(s.status, s.text).toBe(201);
  expect(s.body.late_payment).toBe(extra.late_payment ?? 'return');
  const refund = freshAddress();
  const d = await f.h.request('POST', `/v1/checkout/sessions/${s.body.session_token}/deposit_address`, { body: { refund_address: refund } });
  expect(d.status, d.text).toBe(200);
  return { id: s.body.order_id as string, token: s.body.session_token as string, deposit: d.body.order.deposit_address as Address, refund, expiresAt: Math.floor(Date.parse(s.body.expires_at) / 1000) };
}

/** Past the session's expiry (plus `extra` seconds) on the chain, then indexed and swept: the order is expired. */
async function expire(o: { id: string; token: string; expiresAt: number }, extra = 0) {
  await f.chain.increaseTime(o.expiresAt - (await chainNow()) + 60 + extra);
  await settleExpiring();
  expect(await read(o.id)).toMatchObject({ state: 'expired', amount_received: '0' });
  expect(await pub(o.token)).toMatchObject({ state: 'expired', order: { state: 'expired' } });
}

const read = async (id: string) => (await f.h.request('GET', `/v1/orders/${id}`, { key })).body;
const pub = async (token: string) => {
  const r = await f.h.request('GET', `/v1/checkout/sessions/${token}`);
  expect(r.status, r.text).toBe(200);
  return r.body;
};
const balances = async () => Object.fromEntries(await Promise.all(Object.entries(wallets).map(async ([k, a]) => [k, await balanceOf(f.chain, a)] as const)));

/** A full transfer after expiry, returned whole (reason late): the order stays expired, nothing reaches the split. */
async function expectReturnedLate(o: Awaited<ReturnType<typeof depositSession>>) {
  const before = await balances();
  await send(o.deposit, 10_000_000n);
  await settleExpiring();
  const order = await read(o.id);
  expect(order).toMatchObject({ state: 'expired', amount_received: '10000000' });
  expect(order.paid_by ?? null).toBeNull();
  expect(await balanceOf(f.chain, o.refund)).toBe(10_000_000n);
  expect(await balanceOf(f.chain, o.deposit)).toBe(0n);
  expect(await balances()).toEqual(before);
  const rets = await returnsOf(o.id);
  expect(rets).toHaveLength(1);
  expect(rets[0]).toMatchObject({ reason: 'late', amount: '10000000', refund_address: o.refund });
  expect(await eventsOf(o.id)).not.toContain('order.confirmed');
  expect(await pub(o.token)).toMatchObject({ state: 'expired', order: { state: 'expired', amount_received: '10000000', tx_hash: null } });
}

describe('late_payment accept', () => {
  it('a full transfer within the grace after expiry pays the expired order (confirmed, payment_method deposit, exact split)', async () => {
    const o = await depositSession({ late_payment: 'accept' });
    await expire(o);
    expect(await chainNow()).toBeLessThan(o.expiresAt + GRACE);
    const before = await balances();
    await send(o.deposit, 10_000_000n);
    await settleExpiring();
    const order = await read(o.id);
    expect(order).toMatchObject({ state: 'confirmed', amount_received: '10000000', amount_due: '0', payment_method: 'deposit' });
    expect(order.paid_by.toLowerCase()).toBe(o.deposit.toLowerCase());
    const s = order.computed_split;
    const after = await balances();
    expect({ treasury: after.treasury! - before.treasury!, platform: after.platform! - before.platform!, merchant: after.merchant! - before.merchant!, router: after.router! - before.router! })
      .toEqual({ treasury: BigInt(s.service_fee), platform: BigInt(s.platform_fee), merchant: BigInt(s.merchant_available), router: BigInt(s.reserve_hold) });
    expect(await balanceOf(f.chain, o.refund)).toBe(0n);
    expect(await balanceOf(f.chain, o.deposit)).toBe(0n);
    const types = await eventsOf(o.id);
    expect(types).toContain('order.confirmed');
    expect(types).not.toContain('payment.returned');
    expect(await pub(o.token)).toMatchObject({ state: 'completed', order: { state: 'confirmed', amount_received: '10000000', amount_due: '0', tx_hash: order.tx_hash } });
  });

  it('a full transfer after expiry + grace is returned whole (payment.returned late), the order stays expired', async () => {
    const o = await depositSession({ late_payment: 'accept' });
    await expire(o, GRACE);
    expect(await chainNow()).toBeGreaterThan(o.expiresAt + GRACE);
    await expectReturnedLate(o);
  });
  it('short funds at expiry wait for the grace (no sweep), then the deposits pass returns them once the grace is over', async () => {
    const o = await depositSession({ late_payment: 'accept' });
    await send(o.deposit, 4_000_000n);
    await f.chain.increaseTime(o.expiresAt - (await chainNow()) + 60);
    await settleExpiring();
    expect(await read(o.id)).toMatchObject({ state: 'expired', amount_received: '4000000', amount_due: '6000000' });
    const waiting = await f.h.db.selectFrom('deposits').selectAll().where('order_id', '=', o.id).executeTakeFirstOrThrow();
    expect(waiting.next_sweep_at?.getTime()).toBe((Number(waiting.deadline) + 1) * 1000);
    expect(await f.h.services.deposits.retryDue(84532)).toBe(0);
    expect(await balanceOf(f.chain, o.deposit)).toBe(4_000_000n);

    await f.chain.increaseTime(Number(waiting.deadline) - (await chainNow()) + 5);
    await f.chain.mine(DEPTH + 1);
    expect(await f.h.services.deposits.retryDue(84532)).toBe(1);
    await settleExpiring();
    expect(await balanceOf(f.chain, o.refund)).toBe(4_000_000n);
    expect(await balanceOf(f.chain, o.deposit)).toBe(0n);
    expect(await returnsOf(o.id)).toMatchObject([{ reason: 'late', amount: '4000000', refund_address: o.refund }]);
    expect(await read(o.id)).toMatchObject({ state: 'expired', amount_received: '4000000' });
  });
});

describe('late_payment return (default)', () => {
  it('a full transfer after expiry is returned whole (payment.returned late), the order stays expired', async () => {
    const o = await depositSession();
    await expire(o);
    await expectReturnedLate(o);
  });
});
});
