import fs, { readFileSync } from 'node:fs';
import os from 'node:os';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Nearest-rank percentile of unsorted samples (milliseconds). */
export function percentile(samples: ArrayLike<number>, p: number): number | null {
  if (samples.length === 0) return null;
  const sorted = Float64Array.from(samples).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const round = (v: number | null, digits = 1) => (v === null ? null : Number(v.toFixed(digits)));

/** The 1, 5 and 15 minute load averages, as `uptime` prints them. */
export const loadAvg = () => os.loadavg().map((v) => round(v, 2)!) as [number, number, number];

/** Resident set size of a process in MiB, from /proc (Linux). */
export function rssMiB(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? round(Number(m[1]) / 1024, 1) : null;
  } catch {
    return null;
  }
}

/** Samples a process's RSS every `everyMs` until stopped; returns the peak. */
export function rssSampler(pid: number, everyMs = 200) {
  let peak = rssMiB(pid) ?? 0;
  const timer = setInterval(() => {
    const v = rssMiB(pid);
    if (v !== null && v > peak) peak = v;
  }, everyMs);
  return { stop: () => { clearInterval(timer); return peak; } };
}

/** Runs `op` with `concurrency` workers for `ms`; returns ops/s and latency percentiles. */
export async function closedLoop(concurrency: number, ms: number, op: (i: number) => Promise<unknown>) {
  const latencies: number[] = [];
  let seq = 0;
  let errors = 0;
  const started = performance.now();
  const end = started + ms;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      const t = performance.now();
      try {
        await op(seq++);
        latencies.push(performance.now() - t);
      } catch {
        errors++;
      }
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  return { ops: latencies.length, errors, per_s: round(latencies.length / seconds, 0)!, p50_ms: round(percentile(latencies, 50), 2), p99_ms: round(percentile(latencies, 99), 2) };
}

export function log(...parts: unknown[]) {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${parts.join(' ')}\n`);
}

const CLK_TCK = 100;
/** CPU seconds (user + system) used so far by every process whose command name matches, from /proc (Linux). */
export function cpuSecondsOf(name: RegExp): number {
  let ticks = 0;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (!name.test(comm)) continue;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]); // utime, stime (fields 14 and 15)
    } catch {
      // the process ended while we looked
    }
  }
  return ticks / CLK_TCK;
}

/** Starts counting; the function it returns gives the CPU seconds anvil, PostgreSQL and this process used since. */
export function cpuSplit() {
  const read = () => ({ anvil: cpuSecondsOf(/^anvil$/), postgres: cpuSecondsOf(/^postgres$/), node: process.cpuUsage() });
  const a = read();
  return () => {
    const b = read();
    const n = process.cpuUsage(a.node);
    return { anvil_s: round(b.anvil - a.anvil, 2)!, postgres_s: round(b.postgres - a.postgres, 2)!, node_s: round((n.user + n.system) / 1e6, 2)! };
  };
}

/**
 * CPU used so far (user + system, µs) by every process named `comm` on this machine, from /proc (Linux; null
 * elsewhere). For PostgreSQL beside the bench: its backends live as long as the pool's connections, so the difference
 * over a phase is that phase's database CPU (a backend that exits mid-phase takes its share with it).
 */
export function cpuOfProcesses(comm: string): number | null {
  try {
    const hz = 100; // USER_HZ: what /proc/<pid>/stat counts in on Linux
    let ticks = 0;
    for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue; // exited meanwhile
      }
      const close = stat.lastIndexOf(')');
      if (stat.slice(stat.indexOf('(') + 1, close) !== comm) continue;
      const fields = stat.slice(close + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    }
    return (ticks * 1_000_000) / hz;
  } catch {
    return null;
  }
}
