import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeChain } from '../helpers/factories.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
let p: Awaited<ReturnType<Harness['platform']>>;
let other: Awaited<ReturnType<Harness['platform']>>;
beforeAll(async () => {
  h = await createHarness(fakeChain());
  p = await h.platform({ name: 'Acme Market' });
  other = await h.platform({ name: 'Other Market' });
});
afterAll(async () => { await h.close(); });

let seq = 0;
async function invite(externalId = `rev_m_${++seq}`) {
  const res = await h.request('POST', '/v1/merchants/invitations', {
    key: p.secretKey, body: { external_id: externalId, suggested_name: 'Corner Bakery', chain_id: 84532, reserve_bps: 500 },
  });
  expect(res.status).toBe(201);
  return res.body;
}
const revoke = (id: string, o: { key?: string; idem?: string } = { key: p.secretKey }) =>
  h.request('POST', `/v1/merchants/invitations/${id}/revoke`, o);

async function complete(token: string) {
  const account = privateKeyToAccount(generatePrivateKey());
  const read = await h.request('GET', `/v1/merchants/invitations/${token}?wallet=${account.address}`);
  if (read.status !== 200) return read;
  const signature = await account.signMessage({ message: read.body.message });
  return h.request('POST', `/v1/merchants/invitations/${token}/complete`, { body: { wallet: account.address, name: 'Bakery', signature } });
}

describe('POST /v1/merchants/invitations/:id/revoke', () => {
  it('a revoked invitation reads as expired with revoked_at, and its token can no longer be read or completed', async () => {
    const inv = await invite();
    const res = await revoke(inv.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: inv.id, state: 'expired', external_id: inv.external_id });
    expect(Date.parse(res.body.revoked_at)).not.toBeNaN();
    expect(res.body).not.toHaveProperty('token');
    expect((await h.request('GET', `/v1/merchants/invitations/${inv.token}`)).status).toBe(410);
    const n = await h.count('merchants');
    const done = await complete(inv.token);
    expect(done.status).toBe(410);
    expect(await h.count('merchants')).toBe(n);
    const list = await h.request('GET', '/v1/merchants/invitations', { key: p.secretKey });
    expect(list.body.data.find((i: { id: string }) => i.id === inv.id)).toMatchObject({ state: 'expired', revoked_at: res.body.revoked_at });
  });

  it('re-issue: a fresh invitation with the same external_id gets a new token that works; the revoked one stays expired', async () => {
    const inv = await invite();
    expect((await revoke(inv.id)).status).toBe(200);
    const fresh = await invite(inv.external_id);
    expect(fresh.token).not.toBe(inv.token);
    expect(fresh).toMatchObject({ state: 'pending', revoked_at: null });
    expect((await complete(fresh.token)).status).toBe(201);
    expect((await h.request('GET', `/v1/merchants/invitations/${inv.token}`)).status).toBe(410);
  });

  it('revoking twice changes nothing the second time; an Idempotency-Key replays the first answer', async () => {
    const inv = await invite();
    const first = await revoke(inv.id, { key: p.secretKey, idem: `rev-${inv.id}` });
    const replay = await revoke(inv.id, { key: p.secretKey, idem: `rev-${inv.id}` });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    const again = await revoke(inv.id);
    expect(again.status).toBe(200);
    expect(again.body.revoked_at).toBe(first.body.revoked_at);
  });

  it('a completed invitation is 409 invalid_state and stays completed', async () => {
    const inv = await invite();
    expect((await complete(inv.token)).status).toBe(201);
    const res = await revoke(inv.id);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'invalid_state', param: 'id' });
    const list = await h.request('GET', '/v1/merchants/invitations', { key: p.secretKey });
    expect(list.body.data.find((i: { id: string }) => i.id === inv.id)).toMatchObject({ state: 'completed', revoked_at: null });
  });

  it("another platform's invitation or an unknown id is 404 and nothing changes; no credentials is 401", async () => {
    const inv = await invite();
    const res = await revoke(inv.id, { key: other.secretKey });
    expect(res.status).toBe(404);
    expect((await revoke('inv_doesnotexist')).status).toBe(404);
    expect((await revoke(inv.id, {})).status).toBe(401);
    expect((await h.request('GET', `/v1/merchants/invitations/${inv.token}`)).body).toMatchObject({ state: 'pending' });
  });

  it('works from a dashboard session', async () => {
    const inv = await invite();
    const res = await h.request('POST', `/v1/merchants/invitations/${inv.id}/revoke`, { cookie: p.cookie, headers: { origin: h.config.dashboardUrl } });
    expect(res.status).toBe(200);
    expect(res.body.state).toBe('expired');
  });
});
