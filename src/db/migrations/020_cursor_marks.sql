-- The block hashes the indexer's cursor stood on (the last 256 positions per chain). After a reorg below the
-- confirmation depth the indexer walks them back to the newest one the node still has: the fork point, from
-- which it reads again (a fixed depth could stop short of a deep fork and miss the new branch's events).
create table chain_cursor_marks (
  chain_id integer not null,
  block bigint not null,
  hash text not null,
  primary key (chain_id, block)
);
insert into chain_cursor_marks (chain_id, block, hash)
  select chain_id, last_block, last_block_hash from chain_cursors where last_block_hash is not null and last_block >= 0;
