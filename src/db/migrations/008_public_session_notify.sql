-- The public checkout-session read is cached by every instance until the session's expiry
-- (src/modules/checkout/public-cache.ts). Whatever changes what that read answers tells every instance,
-- on commit, through NOTIFY: the payload is the order id, or '*' when a display name changed (rare; every
-- instance then drops its whole cache). A rolled-back change notifies nobody.
create function notify_public_session_order() returns trigger language plpgsql as $$
begin
  perform pg_notify('trisettle_public_session', new.id);
  return null;
end $$;

create function notify_public_session_session() returns trigger language plpgsql as $$
begin
  perform pg_notify('trisettle_public_session', new.order_id);
  return null;
end $$;

create function notify_public_session_all() returns trigger language plpgsql as $$
begin
  perform pg_notify('trisettle_public_session', '*');
  return null;
end $$;

-- Of an order, the read shows state and tx_hash; everything else it shows never changes.
create trigger orders_public_session after update of state, tx_hash on orders
  for each row when (new.checkout_session_id is not null and (old.state is distinct from new.state or old.tx_hash is distinct from new.tx_hash))
  execute function notify_public_session_order();

create trigger checkout_sessions_public_session after update on checkout_sessions
  for each row execute function notify_public_session_session();

create trigger merchants_public_session after update of name on merchants
  for each row when (old.name is distinct from new.name) execute function notify_public_session_all();

create trigger platforms_public_session after update of name on platforms
  for each row when (old.name is distinct from new.name) execute function notify_public_session_all();
