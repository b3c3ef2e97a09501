import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { fakeChain } from '../helpers/factories.js';

let h: Harness;
let p: Awaited<ReturnType<Harness['platform']>>;
beforeAll(async () => {
  h = await createHarness(fakeChain());
  p = await h.platform({ name: 'Acme Market' });
});
afterAll(async () => { await h.close(); });

let seq = 0;
async function invite(body: Record<string, unknown> = {}) {
  const res = await h.request('POST', '/v1/merchants/invitations', {
    key: p.secretKey, body: { external_id: `inv_m_${++seq}`, suggested_name: 'Corner Bakery', chain_id: 84532, reserve_bps: 500, ...body },
  });
  expect(res.status).toBe(201);
  return res.body;
}

async function signFor(token: string, account = privateKeyToAccount(generatePrivateKey())) {
  const read = await h.request('GET', `/v1/merchants/invitations/${token}?wallet=${account.address}`);
  expect(read.status).toBe(200);
  return { account, message: read.body.message as string, signature: await account.signMessage({ message: read.body.message }) };
}

describe('merchant invitations', () => {
  it('round-trips: invite, read, sign with a real wallet, complete → active merchant bound to that wallet', async () => {
    const inv = await invite();
    expect(inv.token).toMatch(/^moi_live_[0-9A-Za-z]{32}$/);
    expect(inv.url).toBe(`${h.config.dashboardUrl}/onboard/${inv.token}`);
    expect(inv).toMatchObject({ state: 'pending', external_id: `inv_m_${seq}`, suggested_name: 'Corner Bakery' });
    const pub = await h.request('GET', `/v1/merchants/invitations/${inv.token}`);
    expect(pub.body).toMatchObject({ id: inv.id, state: 'pending', platform_name: 'Acme Market', chain_id: 84532, message: null });
    const { account, message, signature } = await signFor(inv.token);
    for (const part of ['Trisettle', 'Acme Market', inv.external_id, account.address, '84532', inv.token]) expect(message).toContain(part);
    const done = await h.request('POST', `/v1/merchants/invitations/${inv.token}/complete`, { body: { wallet: account.address, name: 'The Corner Bakery', signature } });
    expect(done.status).toBe(201);
    expect(done.body.merchant).toMatchObject({ external_id: inv.external_id, name: 'The Corner Bakery', merchant_wallet: account.address, reserve_bps: 500, state: 'active' });
    expect(done.body.invitation).toMatchObject({ state: 'completed', wallet: account.address, merchant_id: done.body.merchant.id });
    const list = await h.request('GET', '/v1/merchants', { key: p.secretKey });
    expect(list.body.data.map((m: { merchant_wallet: string }) => m.merchant_wallet)).toContain(account.address);
    const invs = await h.request('GET', '/v1/merchants/invitations', { key: p.secretKey });
    expect(invs.body.data.find((i: { id: string }) => i.id === inv.id)).toMatchObject({ state: 'completed', wallet: account.address });
    expect(invs.body.data.every((i: Record<string, unknown>) => !('token' in i))).toBe(true);
  });

  // This harness's chain RPC is unreachable (fakeChain). A signature that does not recover to the wallet may
  // still be a contract wallet's (ERC-1271/6492), which only the chain can tell: that is 503, not 422.
  // The 422 refusals against a live chain are in invitations-smart-wallets.test.ts.
  it('a signature that needs the chain while it is unreachable is 503 service_unavailable and writes nothing', async () => {
    const inv = await invite();
    const { account, signature } = await signFor(inv.token);
    const intruder = privateKeyToAccount(generatePrivateKey());
    const read = await h.request('GET', `/v1/merchants/invitations/${inv.token}?wallet=${account.address}`);
    const forged = await intruder.signMessage({ message: read.body.message });
    const n = await h.count('merchants');
    for (const sig of [forged, '0x' + '11'.repeat(65), '0x' + 'ab'.repeat(300)]) {
      const res = await h.request('POST', `/v1/merchants/invitations/${inv.token}/complete`, { body: { wallet: account.address, name: 'X', signature: sig } });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('service_unavailable');
      expect(res.body.error.message).not.toContain('127.0.0.1');
    }
    expect(await h.count('merchants')).toBe(n);
    const pub = await h.request('GET', `/v1/merchants/invitations/${inv.token}`);
    expect(pub.body.state).toBe('pending');
    // an EOA's own signature is checked locally: it completes without the chain
    const done = await h.request('POST', `/v1/merchants/invitations/${inv.token}/complete`, { body: { wallet: account.address, name: 'X', signature } });
    expect(done.status).toBe(201);
  });

  it('an invitation stored for a chain this deployment no longer runs completes for nobody: 422 unsupported_chain, nothing written', async () => {
    const inv = await invite();
    await h.db.updateTable('invitations').set({ chain_id: 8453 }).where('id', '=', inv.id).execute();
    const s = await signFor(inv.token);
    const merchants = await h.count('merchants');
    const refused = await h.request('POST', `/v1/merchants/invitations/${inv.token}/complete`, { body: { wallet: s.account.address, name: 'X', signature: s.signature } });
    expect([refused.status, refused.body.error.code]).toEqual([422, 'unsupported_chain']);
    expect(await h.count('merchants')).toBe(merchants);
    expect((await h.request('GET', '/v1/merchants/invitations', { key: p.secretKey })).body.data.find((i: { id: string }) => i.id === inv.id).state).toBe('pending');
  });

  it('is single use: a reused token is 409 invitation_used', async () => {
    const inv = await invite();
    const s = await signFor(inv.token);
    const first = await h.request('POST', `/v1/merchants/invitations/${inv.token}/complete`, { body: { wallet: s.account.address, name: 'A', signature: s.signature } });
    expect(first.status).toBe(201);
    const again = await h.request('POST', `/v1/merchants/invitations/${inv.token}/complete`, { body: { wallet: s.account.address, name: 'A', signature: s.signature } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invitation_used');
    const read = await h.request('GET', `/v1/merchants/invitations/${inv.token}`);
    expect(read.body.error.code).toBe('invitation_used');
  });

  it('two concurrent completions create one merchant', async () => {
    const inv = await invite();
    const s = await signFor(inv.token);
    const n = await h.count('merchants');
    const results = await Promise.all([0, 1, 2].map(() =>
      h.request('POST', `/v1/merchants/invitations/${inv.token}/complete`, { body: { wallet: s.account.address, name: 'Race', signature: s.signature } })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect(await h.count('merchants')).toBe(n + 1);
  });

  it('an expired token is 410 invitation_expired, on read and complete', async () => {
    const inv = await invite({ expires_in_seconds: 60 });
    const s = await signFor(inv.token);
    await h.db.updateTable('invitations').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', inv.id).execute();
    const read = await h.request('GET', `/v1/merchants/invitations/${inv.token}`);
    expect(read.status).toBe(410);
    expect(read.body.error.code).toBe('invitation_expired');
    const res = await h.request('POST', `/v1/merchants/invitations/${inv.token}/complete`, { body: { wallet: s.account.address, name: 'Late', signature: s.signature } });
    expect(res.status).toBe(410);
    await h.services.invitations.expireDue();
    const row = await h.db.selectFrom('invitations').select('state').where('id', '=', inv.id).executeTakeFirstOrThrow();
    expect(row.state).toBe('expired');
  });

  it('an unknown token is 404', async () => {
    for (const t of ['moi_live_doesnotexist000000000000000000', 'garbage']) {
      const res = await h.request('GET', `/v1/merchants/invitations/${t}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('a fresh invitation for the same external_id gets a new token and expires the old one', async () => {
    const a = await invite({ external_id: 'same_ext' });
    const b = await invite({ external_id: 'same_ext' });
    expect(b.token).not.toBe(a.token);
    const oldRead = await h.request('GET', `/v1/merchants/invitations/${a.token}`);
    expect(oldRead.status).toBe(410);
    const newRead = await h.request('GET', `/v1/merchants/invitations/${b.token}`);
    expect(newRead.body.state).toBe('pending');
  });

  it('refuses an invitation for an external_id already used by a merchant (409) and bad input (422) without rows', async () => {
    const inv = await invite();
    const s = await signFor(inv.token);
    await h.request('POST', `/v1/merchants/invitations/${inv.token}/complete`, { body: { wallet: s.account.address, name: 'A', signature: s.signature } });
    const n = await h.count('invitations');
    const dup = await h.request('POST', '/v1/merchants/invitations', { key: p.secretKey, body: { external_id: inv.external_id, suggested_name: 'B', chain_id: 84532, reserve_bps: 0 } });
    expect(dup.status).toBe(409);
    for (const body of [
      { external_id: 'x', suggested_name: 'B', chain_id: 84532, reserve_bps: 10001 },
      { external_id: 'x', suggested_name: 'B', chain_id: 1, reserve_bps: 0 },
      { external_id: 'x', suggested_name: '', chain_id: 84532 },
      { external_id: 'x', suggested_name: 'B', chain_id: 84532, expires_in_seconds: 59 },
      { external_id: 'x', suggested_name: 'B', chain_id: 84532, expires_in_seconds: 2592001 },
      { external_id: 'has space', suggested_name: 'B', chain_id: 84532 },
      { external_id: 'x', suggested_name: 'B', chain_id: 84532, extra: 1 },
    ]) {
      const res = await h.request('POST', '/v1/merchants/invitations', { key: p.secretKey, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    expect(await h.count('invitations')).toBe(n);
  });

  it('refuses an invitation on a chain the deployment does not run (8453 here) with 422 unsupported_chain, writing nothing', async () => {
    const n = await h.count('invitations');
    const res = await h.request('POST', '/v1/merchants/invitations', { key: p.secretKey, body: { external_id: 'main-net-inv', suggested_name: 'Main', chain_id: 8453 } });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'unsupported_chain', param: 'chain_id' });
    expect(await h.count('invitations')).toBe(n);
    const listed = await h.request('GET', '/v1/merchants/invitations', { key: p.secretKey });
    expect(listed.body.data.some((i: { external_id: string }) => i.external_id === 'main-net-inv')).toBe(false);
  });

  it('refuses malformed completion bodies with 422', async () => {
    const inv = await invite();
    const acct = privateKeyToAccount(generatePrivateKey());
    for (const body of [
      { wallet: 'nope', name: 'A', signature: '0x' + '11'.repeat(65) },
      { wallet: acct.address, name: 'A', signature: '0x123' },
      { wallet: acct.address, name: 'A', signature: '0x' },
      { wallet: acct.address, name: '', signature: '0x' + '11'.repeat(65) },
      { wallet: acct.address, name: 'A' },
    ]) {
      const res = await h.request('POST', `/v1/merchants/invitations/${inv.token}/complete`, { body });
      expect(res.status).toBe(422);
    }
  });

  it("keeps platforms apart: another platform's invitations are not listed", async () => {
    await invite();
    const other = await h.platform();
    const list = await h.request('GET', '/v1/merchants/invitations', { key: other.secretKey });
    expect(list.body.data).toEqual([]);
  });
});
