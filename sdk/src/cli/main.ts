#!/usr/bin/env node
/**
 * The `trisettle` command of @trisettle/sdk (`npx @trisettle/sdk …`):
 *   listen --forward-to <url> [--events a,b.*]   forwards the platform's events (a server-sent event stream), signed
 *   trigger <event> [--payer 0x…]                 makes the platform emit an event (a devnet flow, or a test event)
 * Common: the secret key from TRISETTLE_API_KEY (never a flag: flags show in `ps`); --api-base or TRISETTLE_API;
 * trigger's devnet flows: --rpc-url or TRISETTLE_RPC_URL. Without them, the URLs in TRISETTLE_DEVNET_JSON's file.
 */
import { parseArgs } from 'node:util';
import { TrisettleError } from '../errors.js';
import { listen } from './listen.js';
import { apiBaseFrom, rpcUrlFrom } from './settings.js';
import { trigger, triggerHelp } from './trigger.js';

const USAGE = `Usage:
  npx @trisettle/sdk listen --forward-to <url> [--events order.confirmed,refund.*]
  npx @trisettle/sdk trigger <event> [--payer <dev account>]

trigger <event>, for every event type the service sends:
${triggerHelp()}

Options: --api-base <url> (or TRISETTLE_API)
         --rpc-url <url>  (trigger's devnet flows; or TRISETTLE_RPC_URL)
         Without them: api_url and rpc_url of the devnet.json named by TRISETTLE_DEVNET_JSON.
The secret key (sk_live_…) is read from TRISETTLE_API_KEY.`;

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

function fail(message: string, code = 1): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv, allowPositionals: true, strict: true,
    options: {
      'forward-to': { type: 'string' }, events: { type: 'string' },
      'api-base': { type: 'string' }, 'rpc-url': { type: 'string' }, payer: { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command || (command === 'trigger' && rest.length === 0)) return out(USAGE);
  const apiKey = process.env.TRISETTLE_API_KEY;
  if (!apiKey) fail('TRISETTLE_API_KEY is not set: export your secret key (sk_live_…) first.', 2);
  const apiBase = apiBaseFrom(values['api-base'], process.env);
  if (command === 'listen') {
    if (!values['forward-to']) fail(`listen needs --forward-to <url>\n\n${USAGE}`, 2);
    const stop = new AbortController();
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
    return listen({ apiBase, apiKey, forwardTo: values['forward-to'], events: values.events, out, signal: stop.signal });
  }
  if (command === 'trigger') {
    if (rest.length !== 1) fail(`trigger takes one event name\n\n${USAGE}`, 2);
    return trigger(rest[0]!, { apiBase, apiKey, rpcUrl: () => rpcUrlFrom(values['rpc-url'], process.env), payer: values.payer, out });
  }
  fail(`unknown command "${command}"\n\n${USAGE}`, 2);
}

run(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: unknown) => {
    if (err instanceof TrisettleError) fail(`${err.status ? `${err.status} ` : ''}${err.code}: ${err.message}${err.requestId ? ` (request ${err.requestId})` : ''}`);
    fail(err instanceof Error ? err.message : String(err));
  },
);
