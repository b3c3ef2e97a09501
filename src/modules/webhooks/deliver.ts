import http from 'node:http';
import https from 'node:https';
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { randomBase62 } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import type { Metrics } from '../../lib/metrics.js';
import { eventBody } from '../events/service.js';
import { deliveriesRepo, endpointsRepo, claimRepo, type ClaimedJob } from './repo.js';
import { nextRetryDelayMs, RETRY_AFTER_CAP_MS, RETRY_SCHEDULE_MS } from './schedule.js';
import { postWebhook, type SendResult } from './send.js';
import type { WebhookSecrets } from './secrets.js';
import { emitEvent } from '../events/service.js';
import { serializeEndpoint } from './serialize.js';
import { signatureHeader, standardSignatureHeader } from './sign.js';
import { policyForEnv, systemResolver, type Resolver } from './ssrf.js';
import { createSuccessRecorder } from './record-successes.js';

/** `secrets` opens the endpoint secrets as stored (sealed; services.webhookSecrets). */
export type DelivererDeps = { db: Db; config: Pick<Config, 'env'>; logger: Logger; secrets: WebhookSecrets; metrics?: Metrics };

export type DelivererOptions = {
  /** A 2xx must arrive within this (DESIGN: 15 s). */
  timeoutMs?: number;
  /** Delays between attempts; length = number of retries. */
  scheduleMs?: readonly number[];
  retryAfterCapMs?: number;
  /** Attempts in flight in this instance, all endpoints together. */
  concurrency?: number;
  /** Attempts in flight to one endpoint, all instances together (best effort across instances). */
  perEndpoint?: number;
  /** How long a claimed row stays reserved; must exceed the timeout so a live attempt keeps its lease. */
  leaseMs?: number;
  random?: () => number;
  resolve?: Resolver;
  /** An endpoint failing without a success this long is disabled (WEBHOOK_DISABLE_AFTER_DAYS; default 5 days). */
  disableAfterMs?: number;
  /** The clock attempts are stamped with and failure runs are measured by (tests move it). */
  now?: () => Date;
};

export const DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;
/**
 * Attempts in flight per instance, and to one endpoint (all instances): a slow endpoint holds a quarter of
 * the slots at most (16 and 3 before issue 20: 5.3 endpoints to fill them). By Little's law one endpoint gets
 * at most perEndpoint ÷ (claim + HTTP + record time): 1,500/s at ~20 ms per cycle needs 30 in flight.
 */
export const DEFAULT_CONCURRENCY = 128;
export const DEFAULT_PER_ENDPOINT = 32;
/** Keep-alive agents kept (one per endpoint and URL); the least recently used is closed past this. */
const MAX_AGENTS = 1_000;

export const USER_AGENT = 'Trisettle-Webhooks/1';
const GONE_REASON = 'endpoint answered 410 Gone';
const RECORD_RETRY_FIRST_MS = 100;
const RECORD_RETRY_MAX_MS = 2_000;

/**
 * The webhook deliverer. Claims due deliveries (leased, FOR UPDATE SKIP LOCKED), posts them concurrently
 * from a bounded pool and records every attempt. `start` keeps claiming as slots free up without waiting
 * for attempts in flight, so a slow endpoint holds at most `perEndpoint` slots and delays no one else.
 */
export function createWebhookDeliverer(deps: DelivererDeps, opts: DelivererOptions = {}) {
  const { db, logger, metrics } = deps;
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const scheduleMs = opts.scheduleMs ?? RETRY_SCHEDULE_MS;
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  const perEndpoint = opts.perEndpoint ?? DEFAULT_PER_ENDPOINT;
  const leaseMs = opts.leaseMs ?? timeoutMs + 30_000;
  const disableAfterMs = opts.disableAfterMs ?? DISABLE_AFTER_MS;
  const now = opts.now ?? (() => new Date());
  const policy = policyForEnv(deps.config.env);
  const resolve = opts.resolve ?? systemResolver;
  const log = logger.child({ worker: 'webhooks' });
  const inflight = new Set<Promise<void>>();
  let claiming: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let stopping = false;
  let wakeAt = 0;
  let lastInterval = 1000;
  const successes = createSuccessRecorder(db, log, () => stopping);
  const agents = new Map<string, http.Agent>();

  /**
   * The endpoint's keep-alive agent (at most perEndpoint sockets): later attempts skip the TCP (and TLS)
   * handshake. Keyed by endpoint and URL, so no socket serves another endpoint or an edited URL; every new
   * socket still connects through the guarded lookup (send.ts), so the checked address is the one used.
   */
  function agentOf(job: ClaimedJob): http.Agent {
    const key = `${job.endpoint_id} ${job.url}`;
    let agent = agents.get(key);
    if (agent) {
      agents.delete(key); // re-inserted last: the map's order is the order of use
    } else {
      const o = { keepAlive: true, maxSockets: perEndpoint, maxFreeSockets: perEndpoint, timeout: timeoutMs };
      agent = job.url.startsWith('https:') ? new https.Agent(o) : new http.Agent(o);
      if (agents.size >= MAX_AGENTS) {
        const [oldest, a] = agents.entries().next().value as [string, http.Agent];
        agents.delete(oldest);
        a.destroy();
      }
    }
    agents.set(key, agent);
    return agent;
  }

  /** The same bytes for every attempt of every delivery of an event (events/serialize.ts is the one shape). */
  const bodyOf = (job: ClaimedJob): string =>
    JSON.stringify(eventBody({ id: job.event_id, type: job.event_type, created_at: job.event_created_at, data: job.event_data as never }));

  function secretsOf(job: ClaimedJob, now: Date): string[] {
    const previousLive = job.previous_secret && job.previous_secret_expires_at && job.previous_secret_expires_at > now;
    const open = deps.secrets.open;
    return previousLive ? [open(job.secret), open(job.previous_secret!)] : [open(job.secret)];
  }

  async function attempt(job: ClaimedJob, leaseEndsAt: number): Promise<void> {
    const attemptedAt = now();
    const body = bodyOf(job);
    const timestamp = Math.floor(attemptedAt.getTime() / 1000);
    const secrets = secretsOf(job, attemptedAt);
    const result = await postWebhook({
      url: job.url,
      body,
      timeoutMs,
      policy,
      resolve,
      agent: agentOf(job),
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': USER_AGENT,
        'X-Webhook-Id': job.event_id,
        'X-Webhook-Timestamp': String(timestamp),
        'X-Webhook-Signature': signatureHeader(secrets, timestamp, body),
        // Standard Webhooks: the same delivery, verifiable by the standardwebhooks / Svix libraries as they are.
        'webhook-id': job.event_id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': standardSignatureHeader(secrets, job.event_id, timestamp, body),
      },
    });
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const outcome = ok ? await successes.record(job, attemptedAt, result, leaseEndsAt) : await recordDurably(job, attemptedAt, result, leaseEndsAt);
    metrics?.webhookDeliveries.inc({ outcome });
    // Ids, status and timing only: never the URL (it may carry a token), the body or a secret.
    log[outcome === 'succeeded' ? 'info' : 'warn']({
      delivery_id: job.id, event_id: job.event_id, endpoint_id: job.endpoint_id, attempt: job.attempts + 1,
      status: result.status, duration_ms: result.durationMs, outcome, error: result.error ?? undefined,
    }, 'webhook attempt');
  }

  type Outcome = 'succeeded' | 'retrying' | 'failed' | 'disabled' | 'lease_lost';

  async function record(job: ClaimedJob, attemptedAt: Date, r: SendResult): Promise<Outcome> {
    const ok = r.status !== null && r.status >= 200 && r.status < 300;
    const gone = r.status === 410;
    const retryInMs = ok || gone ? null : nextRetryDelayMs(job.attempts + 1 - job.retry_from, {
      scheduleMs, random: opts.random, retryAfterMs: r.retryAfterMs, retryAfterCapMs: opts.retryAfterCapMs ?? RETRY_AFTER_CAP_MS,
    });
    const state = ok ? 'succeeded' : retryInMs !== null ? 'pending' : 'failed';
    return db.transaction().execute(async (tx) => {
      await claimRepo.recordAttempt(tx, { deliveryId: job.id, attemptedAt, status: r.status, error: r.error, durationMs: r.durationMs });
      const updated = await claimRepo.finish(tx, { id: job.id, token: job.lease_token, state, status: r.status, error: r.error, retryInMs });
      if (gone) {
        // 410: the receiver says this endpoint is gone for good; stop sending anything to it.
        const disabled = await endpointsRepo.disableReturning(tx, job.endpoint_id, GONE_REASON, attemptedAt);
        await deliveriesRepo.failPendingForEndpoint(tx, job.endpoint_id, 'endpoint disabled: ' + GONE_REASON);
        if (disabled) await emitEvent(tx, { platformId: job.platform_id, type: 'webhook_endpoint.disabled', data: { object: serializeEndpoint(disabled) } });
        return 'disabled';
      }
      if (!updated) return 'lease_lost';
      if (ok) {
        await endpointsRepo.markSucceeding(tx, job.endpoint_id);
        return 'succeeded';
      }
      const since = await endpointsRepo.markFailing(tx, job.endpoint_id, attemptedAt);
      if (since && attemptedAt.getTime() - since.getTime() >= disableAfterMs) {
        const days = Math.round(disableAfterMs / 86_400_000 * 10) / 10;
        const reason = `failing without a success for ${days} days (since ${since.toISOString()})`;
        const disabled = await endpointsRepo.disableReturning(tx, job.endpoint_id, reason, attemptedAt);
        if (disabled) {
          await deliveriesRepo.failPendingForEndpoint(tx, job.endpoint_id, 'endpoint disabled: ' + reason);
          // Outbox, with the disable: the platform's other endpoints (and its event list) learn of it.
          await emitEvent(tx, { platformId: job.platform_id, type: 'webhook_endpoint.disabled', data: { object: serializeEndpoint(disabled) } });
          return 'disabled';
        }
      }
      return state === 'pending' ? 'retrying' : 'failed';
    });
  }

  /**
   * The receiver has the event now; forgetting that would send it again once the lease lapses. While the
   * database is away (a restart, a failover) the outcome is held in memory and written as soon as it
   * answers, for as long as this instance still holds the lease. Only a process that dies in between, or
   * a shutdown during the outage, leaves a duplicate to the receiver's dedupe on X-Webhook-Id.
   */
  async function recordDurably(job: ClaimedJob, attemptedAt: Date, r: SendResult, leaseEndsAt: number): Promise<Outcome> {
    for (let waitMs = RECORD_RETRY_FIRST_MS; ; waitMs = Math.min(waitMs * 2, RECORD_RETRY_MAX_MS)) {
      try {
        return await record(job, attemptedAt, r);
      } catch (err) {
        if (stopping || Date.now() + waitMs >= leaseEndsAt) throw err;
        log.warn({ err, delivery_id: job.id, retry_in_ms: waitMs }, 'could not record a webhook attempt; holding its outcome');
        await new Promise((res) => setTimeout(res, waitMs));
      }
    }
  }

  /** Claims are serialised within the instance so two callers never count the same free slots. */
  function claimAndStart(): Promise<Promise<void>[]> {
    const next = claiming.then(async () => {
      const slots = concurrency - inflight.size;
      if (slots <= 0) return [];
      const token = randomBase62(24);
      const leaseEndsAt = Date.now() + leaseMs; // taken before the claim: never later than the database's
      const ids = await claimRepo.claim(db, { slots, perEndpoint, maxEndpoints: slots * 4, leaseMs, token });
      const jobs = await claimRepo.jobs(db, ids, token);
      return jobs.map((job) => {
        const p: Promise<void> = attempt(job, leaseEndsAt)
          .catch((err) => log.error({ err, delivery_id: job.id }, 'webhook attempt crashed; the lease will lapse and it will be retried'))
          .finally(() => {
            inflight.delete(p);
            if (running) schedule(0);
          });
        inflight.add(p);
        return p;
      });
    });
    claiming = next.catch(() => undefined);
    return next;
  }

  /**
   * Sets the next wake-up unless an earlier one is already set: a claim that ends just after a poke must not
   * push the poke's immediate wake-up back to the poll interval (bench: 1 in 50 confirmations waited a
   * full second for its webhook).
   */
  function schedule(ms: number, intervalMs = lastInterval) {
    if (!running) return;
    const at = Date.now() + ms;
    if (timer !== undefined && wakeAt <= at) return;
    clearTimeout(timer);
    wakeAt = at;
    timer = setTimeout(() => {
      timer = undefined;
      claimAndStart()
        .catch((err) => log.error({ err }, 'webhook claim failed'))
        .finally(() => schedule(intervalMs));
    }, ms);
  }

  return {
    /** Claims what is due now, attempts it and waits for those attempts; returns how many were attempted. */
    async runOnce(): Promise<number> {
      const started = await claimAndStart();
      await Promise.all(started);
      return started.length;
    },
    /** Polls every `intervalMs` and whenever an attempt finishes; does not wait for attempts in flight. */
    start(intervalMs = 1000) {
      if (running) return;
      running = true;
      stopping = false;
      lastInterval = intervalMs;
      schedule(0, intervalMs);
    },
    /** New outbox rows were just committed (e.g. by the indexer): claim now instead of at the next poll. */
    poke() {
      schedule(0);
    },
    /** Stops claiming and waits for attempts in flight to be recorded. */
    async stop() {
      running = false;
      stopping = true;
      clearTimeout(timer);
      timer = undefined;
      await claiming;
      await Promise.all([...inflight]);
      for (const a of agents.values()) a.destroy();
      agents.clear();
    },
    inFlight: () => inflight.size,
  };
}

export type WebhookDeliverer = ReturnType<typeof createWebhookDeliverer>;
