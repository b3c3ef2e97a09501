import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../../db/client.js';
import type { Cursor } from '../../db/pagination.js';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from '../../db/schema.js';
import { attemptTransition, DELIVERY_TRANSITIONS } from './state.js';

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type DeliveryView = DeliveryRow & { event_type: string };

export const endpointsRepo = {
  insert: (db: Executor, row: Insertable<WebhookEndpointsTable>) =>
    db.insertInto('webhook_endpoints').values(row).returningAll().executeTakeFirstOrThrow(),

  /** Serialises endpoint creation per platform so the endpoint limit holds under concurrency. */
  lockPlatform: (db: Executor, platformId: string) =>
    db.selectFrom('platforms').select('id').where('id', '=', platformId).forUpdate().executeTakeFirst(),

  countLive: async (db: Executor, platformId: string) =>
    Number((await db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<string>().as('n'))
      .where('platform_id', '=', platformId).where('deleted_at', 'is', null).executeTakeFirstOrThrow()).n),

  /** Deleted endpoints are gone for the API: every read filters them out. */
  findLive: (db: Executor, platformId: string, id: string) =>
    db.selectFrom('webhook_endpoints').selectAll()
      .where('platform_id', '=', platformId).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst(),

  list: (db: Executor, platformId: string, q: { limit: number; cursor: Cursor | null }) => {
    let query = db.selectFrom('webhook_endpoints').selectAll()
      .where('platform_id', '=', platformId).where('deleted_at', 'is', null);
    const c = q.cursor;
    if (c) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(c.createdAt, c.id)));
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit + 1).execute();
  },

  softDelete: (db: Executor, platformId: string, id: string, at: Date) =>
    db.updateTable('webhook_endpoints').set({ deleted_at: at })
      .where('platform_id', '=', platformId).where('id', '=', id).where('deleted_at', 'is', null)
      .returningAll().executeTakeFirst(),

  /** The current secret becomes the previous one, valid until `previousUntil`; an older previous one is dropped. */
  rollSecret: (db: Executor, platformId: string, id: string, secret: string, previousUntil: Date) =>
    db.updateTable('webhook_endpoints')
      .set((eb) => ({ previous_secret: eb.ref('secret'), previous_secret_expires_at: previousUntil, secret }))
      .where('platform_id', '=', platformId).where('id', '=', id).where('deleted_at', 'is', null)
      .returningAll().executeTakeFirst(),

  /** A success ends a run of failures. Writes only when there was one (the common case writes nothing). */
  markSucceeding: (db: Executor, id: string) =>
    db.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', id).where('failing_since', 'is not', null).execute(),

  /** Starts a run of failures at `at` unless one is running; returns when the run started. */
  markFailing: async (db: Executor, id: string, at: Date) =>
    (await db.updateTable('webhook_endpoints').set((eb) => ({ failing_since: eb.fn.coalesce('failing_since', eb.val(at)) }))
      .where('id', '=', id).returning('failing_since').executeTakeFirst())?.failing_since ?? null,

  disableReturning: (db: Executor, id: string, reason: string, at: Date) =>
    db.updateTable('webhook_endpoints').set({ disabled_at: at, disabled_reason: reason })
      .where('id', '=', id).where('disabled_at', 'is', null).where('deleted_at', 'is', null).returningAll().executeTakeFirst(),

  disable: (db: Executor, id: string, reason: string) =>
    db.updateTable('webhook_endpoints').set({ disabled_at: sql`now()`, disabled_reason: reason })
      .where('id', '=', id).where('disabled_at', 'is', null).execute(),
};

export const deliveriesRepo = {
  /** Ends every pending delivery of an endpoint; clearing the lease makes an in-flight attempt's result a no-op. */
  failPendingForEndpoint: (db: Executor, endpointId: string, reason: string) =>
    db.updateTable('webhook_deliveries')
      .set({ state: DELIVERY_TRANSITIONS.fail.to, last_error: reason, locked_until: null, lease_token: null })
      .where('endpoint_id', '=', endpointId).where('state', 'in', DELIVERY_TRANSITIONS.fail.from).execute(),

  /** last_attempt_at is the delivery's own (written with each outcome): attempt rows may have been pruned. */
  view: (db: Executor) =>
    db.selectFrom('webhook_deliveries as d').innerJoin('events as ev', (j) => j.onRef('ev.id', '=', 'd.event_id').onRef('ev.created_at', '=', 'd.event_created_at'))
      .selectAll('d')
      .select('ev.type as event_type'),

  listForEndpoint: (db: Executor, platformId: string, endpointId: string, q: { limit: number; cursor: Cursor | null }) => {
    let query = deliveriesRepo.view(db).where('d.platform_id', '=', platformId).where('d.endpoint_id', '=', endpointId);
    const c = q.cursor;
    if (c) query = query.where((eb) => eb(eb.refTuple('d.created_at', 'd.id'), '<', eb.tuple(c.createdAt, c.id)));
    return query.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(q.limit + 1).execute() as Promise<DeliveryView[]>;
  },

  /** Every delivery of one event (one per endpoint that received it), oldest first: an event's detail page. */
  listForEvent: (db: Executor, platformId: string, eventId: string) =>
    deliveriesRepo.view(db).where('d.platform_id', '=', platformId).where('d.event_id', '=', eventId)
      .orderBy('d.created_at').orderBy('d.id').limit(100).execute() as Promise<DeliveryView[]>,

  findView: (db: Executor, platformId: string, id: string) =>
    deliveriesRepo.view(db).where('d.platform_id', '=', platformId).where('d.id', '=', id).executeTakeFirst() as Promise<DeliveryView | undefined>,

  /**
   * Manual redelivery: due now with a fresh retry schedule (retry_from = attempts so far). Refused while
   * another instance holds a live lease on it, so one row is never delivered twice at once.
   */
  reschedule: (db: Executor, platformId: string, id: string) =>
    db.updateTable('webhook_deliveries')
      .set((eb) => ({ state: DELIVERY_TRANSITIONS.redeliver.to, next_attempt_at: sql`now()`, retry_from: eb.ref('attempts') }))
      .where('platform_id', '=', platformId).where('id', '=', id)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', sql<Date>`now()`)]))
      .returning('id').executeTakeFirst(),
};

export const retentionRepo = {
  /**
   * Deletes up to `limit` attempt rows made before `before`, oldest first (webhook_attempts_attempted_idx), of
   * deliveries that are over: succeeded, or failed with no retry left. A pending delivery's attempts (its newest
   * included) are never touched. SKIP LOCKED: two instances' passes take different rows. Returns the count.
   */
  deleteAttempts: async (db: Executor, before: Date, limit: number) =>
    Number((await sql<{ n: string }>`
      with victims as (
        select a.id, a.attempted_at from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
        where a.attempted_at < ${before} and d.state in ('succeeded', 'failed')
        order by a.attempted_at, a.id limit ${limit}
        for update of a skip locked
      ),
      gone as (delete from webhook_attempts a using victims v where a.id = v.id and a.attempted_at = v.attempted_at returning 1)
      select count(*)::text as n from gone`.execute(db)).rows[0]!.n),
};

export const replayRepo = {
  /** The platform's events in [since, until) of the types the endpoint subscribes to, oldest first (id, created_at). */
  eventIds: async (db: Executor, platformId: string, subscribed: string[], since: Date, until: Date, limit: number) =>
    (await db.selectFrom('events').select(['id', 'created_at'])
      .where('platform_id', '=', platformId).where('created_at', '>=', since).where('created_at', '<', until)
      .$if(!subscribed.includes('*'), (q) => q.where('type', 'in', subscribed))
      .orderBy('created_at').orderBy('id').limit(limit).execute()),

  /**
   * A delivery per event, due now: new rows for events the endpoint never had, and existing ones (whatever their
   * state) rescheduled with a fresh retry schedule, unless an attempt of theirs is in flight (it is being sent).
   */
  schedule: (db: Executor, rows: Insertable<WebhookDeliveriesTable>[]) =>
    db.insertInto('webhook_deliveries').values(rows)
      .onConflict((oc) => oc.columns(['endpoint_id', 'event_id', 'event_created_at']).doUpdateSet((eb) => ({
        state: 'pending', next_attempt_at: sql<Date>`now()`, retry_from: eb.ref('webhook_deliveries.attempts'),
      })).where((eb) => eb.or([eb('webhook_deliveries.locked_until', 'is', null), eb('webhook_deliveries.locked_until', '<=', sql<Date>`now()`)])))
      .execute(),
};

export type ClaimedJob = {
  id: string;
  event_id: string;
  endpoint_id: string;
  platform_id: string;
  attempts: number;
  retry_from: number;
  lease_token: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  event_type: string;
  event_data: unknown;
  event_created_at: Date;
  /** The endpoint's latest recorded attempt failed (failing_since is set): it gets FAILING_PER_ENDPOINT. */
  failing: boolean;
};

/** What the inspector shows of an attempt (GET /v1/webhooks/deliveries/:id). */
export type AttemptDetail = {
  requestUrl: string | null;
  requestHeaders: Record<string, string> | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
};

const jsonOrNull = (v: Record<string, string> | null) => (v === null ? null : JSON.stringify(v));

/**
 * One row of claimRepo.finishSucceededMany, serialised when the attempt is answered: the group commit joins these
 * strings into its one JSON parameter (json_to_recordset), and what waits for the commit is a flat string, not the
 * attempt's objects (less for the collector to copy), nor nine text[] parameters whose every element the driver
 * escaped (request headers included: ~1 kB of quotes per row).
 */
export const successRow = (r: { id: string; token: string; status: number; attemptedAt: Date; durationMs: number } & AttemptDetail) => JSON.stringify({
  id: r.id, token: r.token, status: r.status, at: r.attemptedAt.toISOString(), ms: r.durationMs,
  req_url: r.requestUrl, req_headers: r.requestHeaders, res_headers: r.responseHeaders, res_body: r.responseBody,
});

/**
 * `perEndpoint`: the leases a healthy endpoint may have, all instances together; an endpoint whose latest recorded
 * attempt failed (failing_since set) may have `failingPerEndpoint`, so endpoints that time out cannot take every slot.
 */
export type ClaimLimits = { slots: number; perEndpoint: number; failingPerEndpoint: number; maxEndpoints: number; leaseMs: number; token: string };

export const claimRepo = {
  /**
   * Leases due deliveries in one statement. Fair across endpoints: the endpoints with the oldest due work
   * (each endpoint's first due row, one probe of webhook_deliveries_endpoint_due_idx per live endpoint, so a
   * claim costs the same with 10 or 100,000 rows due; it aggregated every due row before issue 20) are picked first and each gives at most `perEndpoint` rows minus what is already in flight to it (in
   * any instance; saturated endpoints are skipped outright), so a slow endpoint's backlog cannot fill
   * every slot. FOR UPDATE SKIP LOCKED plus the
   * re-checked lease condition mean two instances never lease the same row; a crashed instance's lease
   * simply lapses at locked_until. The leased rows come back with what an attempt needs (endpoint URL and
   * secrets, the event), so a claim is one round trip (it was a claim, then a read of the jobs, before).
   */
  async claim(db: Executor, l: ClaimLimits): Promise<ClaimedJob[]> {
    const due = sql`state = 'pending' and next_attempt_at <= now() and (locked_until is null or locked_until <= now())`;
    const cap = sql`(case when e.failing_since is null then ${l.perEndpoint}::int else ${l.failingPerEndpoint}::int end)`;
    const r = await sql<ClaimedJob>`
      with busy as (
        select endpoint_id, count(*)::int as n from webhook_deliveries
        where locked_until > now() group by endpoint_id
      ),
      due as (
        select e.id as endpoint_id, f.first_due from webhook_endpoints e
        cross join lateral (
          select w.next_attempt_at as first_due from webhook_deliveries w
          where w.endpoint_id = e.id and ${due} order by w.next_attempt_at limit 1
        ) f
        where e.deleted_at is null and e.disabled_at is null and e.paused_at is null
          and coalesce((select n from busy where busy.endpoint_id = e.id), 0) < ${cap}
        order by f.first_due limit ${l.maxEndpoints}
      ),
      candidates as (
        select picked.id, due.first_due, picked.next_attempt_at
        from due
        join webhook_endpoints e on e.id = due.endpoint_id and e.deleted_at is null and e.disabled_at is null and e.paused_at is null
        left join busy on busy.endpoint_id = due.endpoint_id
        cross join lateral (
          select w.id, w.next_attempt_at from webhook_deliveries w
          where w.endpoint_id = due.endpoint_id and ${due}
          order by w.next_attempt_at, w.id limit greatest(${cap} - coalesce(busy.n, 0), 0) -- the endpoint's room
          for update of w skip locked
        ) picked
      )
      update webhook_deliveries d
      set locked_until = now() + ${l.leaseMs}::double precision * interval '1 millisecond', lease_token = ${l.token}
      from webhook_endpoints e, events ev
      -- An array, not a join: the planner probes the primary key per chosen row instead of hashing a whole partition
      -- of deliveries (it did below ~40,000 rows, where a seq scan looks cheaper than a few hundred probes: 16 of a
      -- claim's 17 ms in the bench).
      where d.id = any(array(select id from candidates order by first_due, next_attempt_at limit ${l.slots}))
        and e.id = d.endpoint_id and ev.id = d.event_id and ev.created_at = d.event_created_at
      returning d.id, d.event_id, d.endpoint_id, d.platform_id, d.attempts, d.retry_from, d.lease_token,
                e.url, e.secret, e.previous_secret, e.previous_secret_expires_at,
                ev.type as event_type, ev.data as event_data, ev.created_at as event_created_at, e.failing_since is not null as failing`.execute(db);
    return r.rows;
  },

  recordAttempt: (db: Executor, a: { deliveryId: string; attemptedAt: Date; status: number | null; error: string | null; durationMs: number } & AttemptDetail) =>
    db.insertInto('webhook_attempts').values({
      delivery_id: a.deliveryId, attempted_at: a.attemptedAt, status: a.status, error: a.error, duration_ms: a.durationMs,
      request_url: a.requestUrl, request_headers: jsonOrNull(a.requestHeaders), response_headers: jsonOrNull(a.responseHeaders), response_body: a.responseBody,
    }).execute(),

  /**
   * Many 2xx attempts recorded at once (the deliverer's group commit): every attempt row, then each delivery
   * succeeded by compare-and-set on its lease exactly as `finish` does, then the failure run of each endpoint
   * that had a delivery recorded ends (`markSucceeding`). Returns the ids recorded (the others lost their lease).
   */
  async finishSucceededMany(db: Executor, rows: string[]): Promise<Set<string>> {
    // One statement (data-modifying CTEs) instead of three: fewer round trips inside the caller's transaction.
    const done = (await sql<{ id: string }>`
      with u as (
        select * from json_to_recordset(${`[${rows.join(',')}]`}::json)
          as u(id text, token text, status integer, at timestamptz, ms integer, req_url text, req_headers jsonb, res_headers jsonb, res_body text)
      ),
      attempts as (
        insert into webhook_attempts (delivery_id, attempted_at, status, error, duration_ms, request_url, request_headers, response_headers, response_body)
        select u.id, u.at, u.status, null, u.ms, u.req_url, u.req_headers, u.res_headers, u.res_body from u
      ),
      done as (
        update webhook_deliveries d set state = 'succeeded', attempts = d.attempts + 1, last_status = u.status, last_error = null,
          last_attempt_at = u.at, locked_until = null, lease_token = null, delivered_at = now()
        -- The array bounds the rows of d the planner considers to those recorded (a join alone hashed every
        -- pending delivery when the statistics were older than a burst).
        from u where d.id = any(array(select id from u)) and d.id = u.id and d.lease_token = u.token and d.state = 'pending'
        returning d.id, d.endpoint_id
      ),
      ended as (
        update webhook_endpoints set failing_since = null
        where id in (select endpoint_id from done) and failing_since is not null
      )
      select id from done`.execute(db)).rows;
    return new Set(done.map((r) => r.id));
  },

  /** Leases given back unused (claimed ahead, never attempted: a stopping deliverer): due again at once, attempts unchanged. */
  release: (db: Executor, ids: string[], tokens: string[]) =>
    sql`update webhook_deliveries d set locked_until = null, lease_token = null
        from unnest(${ids}::text[], ${tokens}::text[]) as u(id, token)
        where d.id = u.id and d.lease_token = u.token and d.state = 'pending'`.execute(db),

  /** Compare-and-set on the lease: only the holder of a live lease records the outcome. */
  finish: (db: Executor, j: { id: string; token: string; state: 'pending' | 'succeeded' | 'failed'; status: number | null; error: string | null; retryInMs: number | null; attemptedAt: Date }) =>
    db.updateTable('webhook_deliveries')
      .set((eb) => ({
        state: j.state,
        attempts: eb('attempts', '+', 1),
        last_status: j.status,
        last_error: j.error,
        last_attempt_at: j.attemptedAt,
        locked_until: null,
        lease_token: null,
        ...(j.state === 'succeeded' ? { delivered_at: sql<Date>`now()` } : {}),
        ...(j.retryInMs !== null ? { next_attempt_at: sql<Date>`now() + ${j.retryInMs}::double precision * interval '1 millisecond'` } : {}),
      }))
      .where('id', '=', j.id).where('lease_token', '=', j.token).where('state', 'in', DELIVERY_TRANSITIONS[attemptTransition(j.state)].from)
      .returning('id').executeTakeFirst(),
};
