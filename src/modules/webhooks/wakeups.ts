/**
 * The deliverer's one timer: `schedule(ms)` sets the next wake-up unless an earlier one is already set, so
 * a claim that ends just after a poke does not push the poke's immediate wake-up back to the poll interval
 * (bench: 1 in 50 confirmations waited a full second for its webhook). After each wake-up's work the next
 * is set at the poll interval.
 */
export function createWakeups(work: () => Promise<unknown>, onError: (err: unknown) => void) {
  let timer: NodeJS.Timeout | undefined;
  let wakeAt = 0;
  let running = false;
  let intervalMs = 1000;

  function schedule(ms: number) {
    if (!running) return;
    const at = Date.now() + ms;
    if (timer !== undefined && wakeAt <= at) return;
    clearTimeout(timer);
    wakeAt = at;
    timer = setTimeout(() => {
      timer = undefined;
      work().catch(onError).finally(() => schedule(intervalMs));
    }, ms);
  }

  return {
    schedule,
    start(everyMs: number) {
      if (running) return false;
      running = true;
      intervalMs = everyMs;
      schedule(0);
      return true;
    },
    stop() {
      running = false;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
