/**
 * The indexer's limit on this machine, measured in the same run: the rows a backlog of OrderPaid logs
 * writes (chain_logs, the orders confirmed, one order.confirmed event each, one delivery per subscribed
 * endpoint, the cursor), written by the simplest set-based SQL, in transactions of the product's batch size,
 * on a fresh database holding the same orders. The logs are read from the chain beforehand (not timed):
 * this is the database's write cost alone, with none of the service's rules, decoding or RPC.
 */
import { sql } from 'kysely';
import { INDEXED_EVENTS, type RouterLog } from '../../src/modules/indexer/events.js';
import { PAID_BATCH } from '../../src/modules/indexer/apply-logs.js';
import type { TestChain } from '../../test/helpers/chain.js';
import type { Harness } from '../../test/helpers/harness.js';
import { round } from '../lib/util.js';

type PaidLog = Extract<RouterLog, { eventName: 'OrderPaid' }>;

async function writeBatch(h: Harness, chainId: number, logs: PaidLog[]) {
  const col = <T>(f: (l: PaidLog) => T) => logs.map(f);
  await h.db.transaction().execute(async (tx) => {
    await sql`insert into chain_logs (chain_id, tx_hash, log_index, block_number, block_hash, event_name, onchain_id, event_key)
      select ${chainId}::integer, u.tx, u.li::integer, u.b::int8, u.bh, 'OrderPaid', u.id, 'OrderPaid:' || u.id
      from unnest(${col((l) => l.transactionHash)}::text[], ${col((l) => String(l.logIndex))}::text[], ${col((l) => String(l.blockNumber))}::text[],
                  ${col((l) => l.blockHash)}::text[], ${col((l) => l.args.orderId)}::text[]) as u(tx, li, b, bh, id)`.execute(tx);
    await sql`with paid as (
        update orders o set state = 'confirmed', paid_by = u.payer, tx_hash = u.tx, block_number = u.b::int8, paid_at = now(),
          confirmed_at = now(), reserve_remaining = o.reserve_hold, updated_at = now()
        from unnest(${col((l) => l.args.orderId)}::text[], ${col((l) => l.args.payer)}::text[], ${col((l) => l.transactionHash)}::text[],
                    ${col((l) => String(l.blockNumber))}::text[]) as u(id, payer, tx, b)
        where o.onchain_id = u.id and o.state = 'pending_payment' returning o.*),
      ev as (
        insert into events (id, platform_id, type, data, created_at)
        select 'evt_' || md5(paid.id), paid.platform_id, 'order.confirmed', jsonb_build_object('object', to_jsonb(paid)), now() from paid
        returning id, platform_id, created_at)
      insert into webhook_deliveries (id, event_id, event_created_at, endpoint_id, platform_id, state)
      select 'dlv_' || md5(ev.id || e.id), ev.id, ev.created_at, e.id, ev.platform_id, 'pending'
      from ev join webhook_endpoints e on e.platform_id = ev.platform_id and e.deleted_at is null and e.disabled_at is null`.execute(tx);
    await sql`update chain_cursors set last_block = ${logs.at(-1)!.blockNumber}, updated_at = now() where chain_id = ${chainId}`.execute(tx);
  });
}

/** Logs/s for the same backlog written by set-based SQL alone (the database's own rate for these rows). */
export async function indexerLimit(h: Harness, chain: TestChain, toBlock: bigint) {
  const logs: PaidLog[] = [];
  for (let from = 0n; from <= toBlock; from += 2n) { // a few blocks per call: a dense block is ~1 MB of JSON
    const to = from + 1n < toBlock ? from + 1n : toBlock;
    const got = await chain.publicClient.getLogs({ address: chain.router, events: INDEXED_EVENTS, fromBlock: from, toBlock: to, strict: true });
    logs.push(...(got.filter((l) => l.eventName === 'OrderPaid') as unknown as PaidLog[]));
  }
  await sql`insert into chain_cursors (chain_id, last_block) values (${chain.chainId}, -1) on conflict do nothing`.execute(h.db);
  const started = performance.now();
  for (let i = 0; i < logs.length; i += PAID_BATCH) await writeBatch(h, chain.chainId, logs.slice(i, i + PAID_BATCH));
  const seconds = (performance.now() - started) / 1000;
  const confirmed = Number((await h.db.selectFrom('orders').select((eb) => eb.fn.countAll<string>().as('n')).where('state', '=', 'confirmed').executeTakeFirstOrThrow()).n);
  return { logs: logs.length, confirmed, seconds: round(seconds, 2)!, per_s: round(logs.length / seconds, 0)! };
}
