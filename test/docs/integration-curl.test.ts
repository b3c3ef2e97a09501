/**
 * docs/integration.md as a reader pastes it: every ```sh / ```bash block, in document order, in one bash
 * (so variables and the working directory carry from block to block), against a fresh service on its devnet
 * (its own DATA_DIR), after the `export` lines its start-up banner printed. `set -euo pipefail`: a failed
 * command fails the test, and every curl of a runnable block must carry -f (`curl -fsS`), so any non-2xx does.
 *
 * A block that cannot run here starts with the line
 *     # doc-test: skip (<why>)
 * (it starts the service, needs production, or runs until interrupted) and is left out; anything else is run.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanEnv, ROOT, startService, type Service } from '../helpers/service-process.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

export const SKIP_MARKER = /^#\s*doc-test:\s*skip\s*\((.+)\)\s*$/;
type Block = { n: number; line: number; code: string; skip: string | null };

/** The ```sh and ```bash blocks of a markdown text, in order, with the line each starts on and its skip reason. */
export function shellBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(sh|bash)\s*$/.test(lines[i]!)) continue;
    const start = i + 1;
    while (++i < lines.length && !/^```\s*$/.test(lines[i]!));
    const code = lines.slice(start, i).join('\n');
    const skip = SKIP_MARKER.exec(code.split('\n')[0] ?? '')?.[1] ?? null;
    blocks.push({ n: blocks.length + 1, line: start, code, skip });
  }
  return blocks;
}

/** The curl invocations of a block (continuation lines joined, comments dropped) that do not fail on an HTTP error. */
export function curlsWithoutFail(code: string): string[] {
  const lines = code.replace(/\\\n/g, ' ').split('\n').map((l) => l.replace(/(^|\s)#.*$/, ''));
  const calls = lines.flatMap((l) => [...l.matchAll(/(?:^|[\s|;&(])(curl\s[^|;&)]*)/g)].map((m) => m[1]!.trim()));
  return calls.filter((c) => !/\s(-[a-zA-Z]*f[a-zA-Z]*|--fail)(\s|$)/.test(` ${c} `));
}

const GUIDE = path.join(ROOT, 'docs/integration.md');
const blocks = shellBlocks(readFileSync(GUIDE, 'utf8'));
const runnable = blocks.filter((b) => !b.skip);

let service: Service;
let work: string;
let result: { code: number | null; stdout: string; stderr: string };

/** The banner's `export TRISETTLE_…` lines, as `npm start` printed them (its stdout is in the log file). */
async function bannerExports(logFile: string): Promise<string[]> {
  for (let i = 0; i < 100; i++) {
    const lines = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').filter((l) => /^\s+export TRISETTLE_/.test(l)) : [];
    if (lines.length) return lines.map((l) => l.trim());
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no export lines in the banner (${logFile})`);
}

function script(exports: string[]): string {
  const parts = ['set -euo pipefail', ...exports];
  for (const b of runnable) parts.push(`echo '::block ${b.n} (docs/integration.md line ${b.line})::' >&2`, b.code);
  parts.push("echo '::done::' >&2");
  return parts.join('\n');
}

describe('docs/integration.md, pasted block by block into bash against a fresh devnet', () => {
  beforeAll(async () => {
    service = await startService('docs-curl');
    work = mkdtempSync(path.join(tmpdir(), 'trisettle-guide-'));
    const env = cleanEnv({});
    for (const k of Object.keys(env)) if (k.startsWith('TRISETTLE_')) delete env[k];
    const child = spawn('bash', ['-c', script(await bannerExports(service.logFile))], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    result = { code, stdout, stderr };
  });

  afterAll(async () => {
    await service?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('has runnable blocks for every step, and a reason on each skipped one', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(12);
    for (const b of blocks.filter((x) => x.skip)) expect(b.skip!.length).toBeGreaterThan(3);
  });

  it('every curl of a runnable block fails on an HTTP error (-f)', () => {
    expect(runnable.flatMap((b) => curlsWithoutFail(b.code).map((c) => `block ${b.n} (line ${b.line}): ${c.trim()}`))).toEqual([]);
  });

  it('runs every runnable block without a failed command or a non-2xx answer', () => {
    const reached = [...result.stderr.matchAll(/::block (\d+) \((.+?)\)::/g)].pop();
    const where = reached ? `block ${reached[1]} (${reached[2]})` : 'before the first block';
    expect(result.code, `failed in ${where}:\n${result.stderr.slice(-3000)}\n--- stdout:\n${result.stdout.slice(-2000)}`).toBe(0);
    expect(result.stderr).toContain('::done::');
  });

  it('ends with the session paid gaslessly by the devnet buyer and confirmed, and a refund from its reserve', () => {
    expect(result.stdout).toMatch(/confirmed paid_by=0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 tx=0x[0-9a-f]{64}/);
    expect(result.stdout).toMatch(/"object":"refund"[^\n]*"funding_required":"0"/);
  });
});

describe('the block extractor', () => {
  it('finds sh and bash blocks with their skip marker, and flags a curl without -f', () => {
    const md = '# t\n```sh\n# doc-test: skip (starts it)\nnpm start\n```\ntext\n```bash\ncurl -fsS "$A/x" \\\n  -d 1\ncurl -s "$A/y"\n```\n```ts\ncurl\n```\n';
    const found = shellBlocks(md);
    expect(found.map((b) => [b.line, b.skip])).toEqual([[2, 'starts it'], [7, null]]); // the opening fence's line
    expect(curlsWithoutFail(found[1]!.code)).toEqual(['curl -s "$A/y"']);
    expect(curlsWithoutFail('X=$(curl --fail -s "$A")\ncurl -sSf x | tee y')).toEqual([]);
  });
});
