import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { Metrics } from '../../lib/metrics.js';
import { createAgentPool } from './agents.js';
import { createSuccessRecorder } from './record-successes.js';
import { RETRY_AFTER_CAP_MS, RETRY_SCHEDULE_MS } from './schedule.js';
import type { WebhookSecrets } from './secrets.js';
import { policyForEnv, systemResolver, type Resolver, type UrlPolicy } from './ssrf.js';

/** `secrets` opens the endpoint secrets as stored (sealed; services.webhookSecrets). `clock`: attempts are stamped with it. */
export type DelivererDeps = { db: Db; config: Pick<Config, 'env'>; logger: Logger; secrets: WebhookSecrets; metrics?: Metrics; clock?: Clock };

export type DelivererOptions = {
  /** A 2xx must arrive within this (DESIGN: 15 s). */
  timeoutMs?: number;
  /** Delays between attempts; length = number of retries. */
  scheduleMs?: readonly number[];
  retryAfterCapMs?: number;
  /** Attempts in flight in this instance, all endpoints together. */
  concurrency?: number;
  /**
   * POSTs in flight to one endpoint from this instance; the running loop leases up to CLAIM_AHEAD times this to
   * one endpoint, all instances together (best effort across instances). WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT.
   */
  perEndpoint?: number;
  /** How long a claimed row stays reserved; must exceed the timeout so a live attempt keeps its lease. */
  leaseMs?: number;
  random?: () => number;
  resolve?: Resolver;
  /** An endpoint failing without a success this long is disabled (WEBHOOK_DISABLE_AFTER_DAYS; default 5 days). */
  disableAfterMs?: number;
};

export const DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;
/**
 * POSTs in flight per instance, and to one endpoint: a slow endpoint holds a quarter of the slots at most (16 and 3
 * before issue 20: 5.3 endpoints to fill them). By Little's law one endpoint gets at most perEndpoint ÷ the time of
 * one POST (its slot is free once answered; issue 37): 32 at a 10 ms answer is 3,200/s. A small receiver is
 * protected by the cap; a large one that wants more sets WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT (per instance).
 */
export const DEFAULT_CONCURRENCY = 128;
export const DEFAULT_PER_ENDPOINT = 32;
/**
 * POSTs in flight, and leases all instances together, for an endpoint whose latest attempt failed (a timeout, a
 * refused connection, a 5xx) until it answers a 2xx again. A healthy endpoint may hold a quarter of the slots; without
 * this, four endpoints that time out (15 s each) held every slot of an instance and stalled every other platform's
 * webhooks. One at a time is what a failing receiver is sent anyway (its deliveries wait on the retry schedule).
 */
export const FAILING_PER_ENDPOINT = 1;

/** What every delivery step reads: dependencies, settled options, and the instance's shared pools. */
export type DelivererCtx = {
  db: Db; log: Logger; metrics?: Metrics; secrets: WebhookSecrets; clock: Clock;
  timeoutMs: number; scheduleMs: readonly number[]; retryAfterCapMs: number; random?: () => number;
  concurrency: number; perEndpoint: number; leaseMs: number; disableAfterMs: number;
  policy: UrlPolicy;
  agents: ReturnType<typeof createAgentPool>;
  successes: ReturnType<typeof createSuccessRecorder>;
  /** True once stop() began: outcomes are no longer held through a database outage. */
  stopping: () => boolean;
};

/** Opened secrets kept by the deliverer, by their sealed value; the oldest is dropped past this. */
const OPENED_SECRETS = 1_000;

/**
 * `secrets` whose `open` remembers what it opened, by the sealed value as stored (a rotated or re-sealed secret is a
 * new value, so never a stale one): an endpoint's deliveries decrypt its secret once, not once per POST (bench: the
 * AES-GCM open was ~7 % of the deliverer's CPU). The plain secrets stay in this process's memory, as they do while
 * signing.
 */
function openingOnce(secrets: WebhookSecrets): WebhookSecrets {
  const opened = new Map<string, string>();
  return {
    ...secrets,
    open(stored: string): string {
      let plain = opened.get(stored);
      if (plain === undefined) {
        plain = secrets.open(stored);
        if (opened.size >= OPENED_SECRETS) opened.delete(opened.keys().next().value!);
        opened.set(stored, plain);
      }
      return plain;
    },
  };
}

export function delivererContext(deps: DelivererDeps, opts: DelivererOptions, stopping: () => boolean): DelivererCtx {
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const perEndpoint = opts.perEndpoint ?? DEFAULT_PER_ENDPOINT;
  const clock = deps.clock ?? systemClock;
  const log = deps.logger.child({ worker: 'webhooks' });
  const policy = policyForEnv(deps.config.env);
  return {
    db: deps.db, log, metrics: deps.metrics, secrets: openingOnce(deps.secrets), clock,
    timeoutMs, scheduleMs: opts.scheduleMs ?? RETRY_SCHEDULE_MS, retryAfterCapMs: opts.retryAfterCapMs ?? RETRY_AFTER_CAP_MS, random: opts.random,
    concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY, perEndpoint, leaseMs: opts.leaseMs ?? timeoutMs + 30_000,
    disableAfterMs: opts.disableAfterMs ?? DISABLE_AFTER_MS,
    policy,
    agents: createAgentPool(perEndpoint, timeoutMs, policy, opts.resolve ?? systemResolver),
    successes: createSuccessRecorder(deps.db, log, stopping),
    stopping,
  };
}
