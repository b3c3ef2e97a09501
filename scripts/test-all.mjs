#!/usr/bin/env node
// Runs every suite the project has, in order, and ends with one line "N passed, N failed".
//   1. Solidity: forge unit, fuzz and invariant tests (offline), and the artifact check
//   2. TypeScript on embedded PGlite      (TEST_DB=pglite)
//   3. TypeScript on the machine's PostgreSQL (TEST_DB=postgres, fresh database per harness)
//   4. End to end: the real service + anvil devnet + Debian chromium
// Nothing is skipped: a suite that cannot run counts as failed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';

const only = process.argv.slice(2);
const want = (name) => only.length === 0 || only.includes(name);
mkdirSync('test-results', { recursive: true });
const totals = { passed: 0, failed: 0, skipped: 0 };
const lines = [];
const failures = [];
const firstLine = (m) => String(m ?? '').split('\n').find((l) => l.trim())?.trim().slice(0, 300) ?? '';

function run(name, cmd, args, env = {}) {
  console.log(`\n━━ ${name}: ${cmd} ${args.join(' ')}`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  process.stdout.write(r.stdout ?? '');
  return { status: r.status ?? 1, out: r.stdout ?? '', secs: ((Date.now() - started) / 1000).toFixed(0) };
}

function vitest(name, args, env) {
  const file = `test-results/vitest-${name}.json`;
  rmSync(file, { force: true });
  const r = run(name, 'npx', ['vitest', 'run', ...args, '--reporter=default', '--reporter=json', `--outputFile=${file}`], env);
  let passed = 0, failed = 0, skipped = 0;
  if (existsSync(file)) {
    const j = JSON.parse(readFileSync(file, 'utf8'));
    passed = j.numPassedTests; failed = j.numFailedTests; skipped = j.numPendingTests + (j.numTodoTests ?? 0);
    // Name every failure again at the end, where a reader of only the log's tail still sees it.
    for (const f of j.testResults ?? []) {
      const file = f.name.replace(`${process.cwd()}/`, '');
      const bad = (f.assertionResults ?? []).filter((t) => t.status === 'failed');
      if (f.status === 'failed' && bad.length === 0) failures.push(`${name}: ${file}: ${firstLine(f.message)}`);
      for (const t of bad) failures.push(`${name}: ${file} › ${t.fullName ?? t.title}: ${firstLine(t.failureMessages?.[0])}`);
    }
    if (r.status !== 0 && failed === 0) failed = 1; // a suite that crashed outside a test still fails
  } else failed = 1;
  record(name, passed, failed, skipped, r.secs);
}

function record(name, passed, failed, skipped, secs) {
  totals.passed += passed; totals.failed += failed; totals.skipped += skipped;
  lines.push(`${name.padEnd(10)} ${String(passed).padStart(5)} passed ${String(failed).padStart(4)} failed ${String(skipped).padStart(3)} skipped  ${secs}s`);
}

if (want('contracts')) {
  const r = run('contracts', 'npm', ['run', '-s', 'contracts:test']);
  const m = [...r.out.matchAll(/(\d+) tests passed, (\d+) failed, (\d+) skipped/g)].at(-1);
  const passed = m ? Number(m[1]) : 0;
  const failed = m ? Number(m[2]) : 0;
  record('contracts', passed, failed + (r.status !== 0 && failed === 0 ? 1 : 0), m ? Number(m[3]) : 0, r.secs);
}
if (want('pglite')) vitest('pglite', [], { TEST_DB: 'pglite' });
if (want('postgres')) vitest('postgres', [], { TEST_DB: 'postgres' });
if (want('e2e')) {
  const prep = run('e2e-setup', 'bash', ['-c', 'bash scripts/ensure-chromium.sh && npm run -s build:web']);
  if (prep.status !== 0) record('e2e', 0, 1, 0, prep.secs);
  else vitest('e2e', ['--config', 'test/e2e/vitest.config.ts'], {});
}

console.log('\n━━ summary');
for (const l of lines) console.log(l);
if (totals.skipped > 0) console.log(`(${totals.skipped} skipped)`);
if (failures.length) console.log(`failed:\n${failures.map((f) => `  ${f}`).join('\n')}`);
console.log(`${totals.passed} passed, ${totals.failed} failed`);
process.exit(totals.failed > 0 ? 1 : 0);
