// autocannon ships no types; the bench uses a small part of its programmatic API (see load.ts).
declare module 'autocannon' {
  type Instance = PromiseLike<unknown> & { on(event: 'response', fn: (client: unknown, status: number, bytes: number, ms: number) => void): void };
  function autocannon(opts: Record<string, unknown>): Instance;
  export default autocannon;
}
