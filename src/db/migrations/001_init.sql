-- Accounts (better-auth's schema; column names are better-auth's own camelCase).
create table "user" (
  id text primary key,
  name text not null,
  email text not null unique,
  "emailVerified" boolean not null default false,
  image text,
  "createdAt" timestamptz not null default now(),
  "updatedAt" timestamptz not null default now()
);
create table "session" (
  id text primary key,
  "expiresAt" timestamptz not null,
  token text not null unique,
  "createdAt" timestamptz not null default now(),
  "updatedAt" timestamptz not null default now(),
  "ipAddress" text,
  "userAgent" text,
  "userId" text not null references "user"(id) on delete cascade
);
create index session_user_idx on "session" ("userId");
create table "account" (
  id text primary key,
  "accountId" text not null,
  "providerId" text not null,
  "userId" text not null references "user"(id) on delete cascade,
  "accessToken" text,
  "refreshToken" text,
  "idToken" text,
  "accessTokenExpiresAt" timestamptz,
  "refreshTokenExpiresAt" timestamptz,
  scope text,
  password text,
  "createdAt" timestamptz not null default now(),
  "updatedAt" timestamptz not null default now()
);
create index account_user_idx on "account" ("userId");
create table "verification" (
  id text primary key,
  identifier text not null,
  value text not null,
  "expiresAt" timestamptz not null,
  "createdAt" timestamptz not null default now(),
  "updatedAt" timestamptz not null default now()
);
create index verification_identifier_idx on "verification" (identifier);
create table "rateLimit" (
  id text primary key,
  key text not null unique,
  count integer not null,
  "lastRequest" bigint not null
);

-- Platforms and their keys. One platform per account.
create table platforms (
  id text primary key,
  user_id text not null unique references "user"(id),
  name text not null,
  platform_wallet text not null,
  chain_id integer not null,
  platform_fee_bps integer not null check (platform_fee_bps between 0 and 10000),
  default_reserve_bps integer not null check (default_reserve_bps between 0 and 10000),
  created_at timestamptz not null default now()
);
create table api_keys (
  id text primary key,
  platform_id text not null references platforms(id),
  kind text not null check (kind in ('secret', 'publishable')),
  key_hash text not null unique,          -- SHA-256 hex of the whole key; the key itself is never stored
  key_hint text not null,                 -- e.g. sk_live_…Ab3d, for people to tell keys apart
  publishable_key text,                   -- publishable keys are public by design and may be shown again
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index api_keys_platform_idx on api_keys (platform_id, created_at desc);

-- Idempotency (DESIGN §3): one row per (caller scope, key); the unique primary key makes races safe.
create table idempotency_keys (
  scope text not null,
  key text not null,
  method text not null,
  path text not null,
  fingerprint text not null,
  status integer,
  response_body text,
  locked_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (scope, key)
);
create index idempotency_keys_created_idx on idempotency_keys (created_at);
