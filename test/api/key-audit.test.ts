import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createHarness, type Harness } from '../helpers/harness.js';

/**
 * GET /v1/developers/audit_log: every key creation (onboarding), roll (dashboard) and revocation (dashboard, or a
 * secret key revoking itself), with who, when and from which client address. The harness stands behind one
 * trusted proxy (TRUST_PROXY_HOPS=1): the client is the last X-Forwarded-For entry, whatever it wrote before it.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

const from = (address: string) => ({ 'x-forwarded-for': address });
const onboardBody = { name: 'Audit Market', platform_wallet: '0x90F79bf6EB2c4f870365E785982E1f101E93b906', chain_id: 84532, platform_fee_bps: 500, default_reserve_bps: 1000 };
const audit = (opts: { key?: string; cookie?: string }, q = '') => h.request('GET', `/v1/developers/audit_log${q}`, opts);

describe('the key audit log', () => {
  it('records onboarding, a roll and revocations with who, when and from where, newest first', async () => {
    const u = await h.signUp();
    const onboarded = await h.request('POST', '/v1/onboarding/self', { cookie: u.cookie, body: onboardBody, headers: { origin: BASE, ...from('203.0.113.10') } });
    expect(onboarded.status).toBe(201);
    const secretKey = onboarded.body.secret_key as string;
    const keys = (await h.request('GET', '/v1/developers/keys', { key: secretKey })).body.data as any[];
    const first = keys.find((k) => k.kind === 'secret');
    const pk = keys.find((k) => k.kind === 'publishable');

    // A client that writes its own X-Forwarded-For entry is recorded at the address the proxy appended.
    const rolled = await h.request('POST', '/v1/developers/keys', { cookie: u.cookie, headers: { origin: BASE, ...from('10.9.9.9, 203.0.113.11') } });
    expect(rolled.status).toBe(201);
    const revokedBySession = await h.request('POST', `/v1/developers/keys/${pk.id}/revoke`, { cookie: u.cookie, headers: { origin: BASE, ...from('203.0.113.12') } });
    expect(revokedBySession.status).toBe(200);
    const revokedItself = await h.request('POST', `/v1/developers/keys/${first.id}/revoke`, { key: secretKey, headers: from('198.51.100.7') });
    expect(revokedItself.status).toBe(200);

    const log = await audit({ key: rolled.body.key });
    expect(log.status).toBe(200);
    expect(log.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    const session = { type: 'session', user_id: u.userId, email: u.email, key_id: null };
    const events = log.body.data as any[];
    expect(events.slice(0, 3)).toEqual([
      expect.objectContaining({ action: 'key.revoked', key_id: first.id, key_kind: 'secret', key_hint: first.hint, actor: { type: 'secret_key', user_id: null, email: null, key_id: first.id }, client_address: '198.51.100.7' }),
      expect.objectContaining({ action: 'key.revoked', key_id: pk.id, key_kind: 'publishable', actor: session, client_address: '203.0.113.12' }),
      expect.objectContaining({ action: 'key.rolled', key_id: rolled.body.id, key_kind: 'secret', key_hint: rolled.body.hint, actor: session, client_address: '203.0.113.11' }),
    ]);
    // The two onboarding events share their time (one transaction); both come last, in either order.
    expect(events.slice(3).sort((x, y) => (x.key_kind < y.key_kind ? -1 : 1))).toEqual([
      expect.objectContaining({ action: 'key.created', key_id: pk.id, key_kind: 'publishable', actor: session, client_address: '203.0.113.10' }),
      expect.objectContaining({ action: 'key.created', key_id: first.id, key_kind: 'secret', actor: session, client_address: '203.0.113.10' }),
    ]);
    for (const e of events) {
      expect(e.id).toMatch(/^aud_[0-9A-Za-z]{20}$/);
      expect(e.object).toBe('audit_event');
      expect(Date.parse(e.created_at)).toBeGreaterThan(Date.now() - 60_000);
    }
    expect(log.text).not.toContain(rolled.body.key);
    expect(log.text).not.toContain(secretKey);
    expect(revokedItself.body.revoked_at).toBe(events[0].created_at);

    // The same log for the dashboard session.
    const bySession = await audit({ cookie: u.cookie });
    expect(bySession.body.data).toEqual(log.body.data);
  });

  it('pages newest first with cursors, and shows only the caller platform events', async () => {
    const a = await h.platform();
    const b = await h.platform();
    for (let i = 0; i < 3; i++) expect((await h.request('POST', '/v1/developers/keys', { cookie: a.cookie })).status).toBe(201);
    const whole = (await audit({ key: a.secretKey })).body.data as any[];
    expect(whole).toHaveLength(5);
    const paged: any[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await audit({ key: a.secretKey }, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      paged.push(...res.body.data);
      expect(res.body.has_more).toBe(paged.length < 5);
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(paged).toEqual(whole);
    const times = whole.map((e) => Date.parse(e.created_at));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    const bLog = (await audit({ key: b.secretKey })).body.data as any[];
    expect(bLog).toHaveLength(2);
    for (const e of bLog) expect(whole.map((x) => x.id)).not.toContain(e.id);
    expect((await audit({ key: a.secretKey }, '?limit=101')).status).toBe(422);
    expect((await audit({ key: a.secretKey }, '?cursor=nope')).status).toBe(422);
    expect((await audit({})).status).toBe(401);
  });

  it('writes nothing for a refused request or a revocation that changes nothing', async () => {
    const p = await h.platform();
    const extra = (await h.request('POST', '/v1/developers/keys', { cookie: p.cookie })).body;
    expect((await h.request('POST', `/v1/developers/keys/${extra.id}/revoke`, { cookie: p.cookie })).status).toBe(200);
    const before = await h.count('key_audit_log');
    expect((await h.request('POST', `/v1/developers/keys/${extra.id}/revoke`, { cookie: p.cookie })).status).toBe(200);
    expect((await h.request('POST', '/v1/developers/keys', { key: p.secretKey })).status).toBe(403);
    const pk = ((await h.request('GET', '/v1/developers/keys', { key: p.secretKey })).body.data as any[]).find((k) => k.kind === 'publishable');
    expect((await h.request('POST', `/v1/developers/keys/${pk.id}/revoke`, { key: p.secretKey })).status).toBe(403);
    expect(await h.count('key_audit_log')).toBe(before);
  });

  it('keeps at most 64 characters of an address, and none when there is no address', async () => {
    const p = await h.platform();
    const long = `2001:db8::${'a'.repeat(100)}`;
    expect((await h.request('POST', '/v1/developers/keys', { cookie: p.cookie, headers: from(long) })).status).toBe(201);
    expect((await h.request('POST', '/v1/developers/keys', { cookie: p.cookie })).status).toBe(201);
    const [none, cut] = (await audit({ key: p.secretKey })).body.data as any[];
    expect(cut.client_address).toBe(long.slice(0, 64));
    expect(none.client_address).toBeNull();
  });
});
