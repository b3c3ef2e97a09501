import type { SenderContext } from './context.js';

let recorded = 0;

/**
 * TEST-ONLY fault hook (OPERATOR_TX_FAULT, read in config.ts; never set in production):
 * `kill_after_record:N` SIGKILLs this process right after its N-th signed transaction was recorded (committed)
 * and before it is broadcast, so a test can show that the next lease holder sends exactly that transaction.
 */
export function afterRecord(ctx: SenderContext): void {
  recorded++;
  const m = /^kill_after_record:(\d+)$/.exec(ctx.fault ?? '');
  if (m && recorded >= Number(m[1])) process.kill(process.pid, 'SIGKILL');
}
