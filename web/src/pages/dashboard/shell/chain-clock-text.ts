/**
 * How far the devnet chain's clock is from the browser's, to the hour: "+40 d", "+2 d 3 h", "+5 h", "−1 d". Rounded to
 * whole hours first, so a chain a second behind 40 days reads "+40 d", never "+39 d 24 h".
 */
export function chainClockText(offsetMs: number): string {
  const totalHours = Math.round(Math.abs(offsetMs) / 3_600_000);
  const days = Math.floor(totalHours / 24);
  const hours = totalHours % 24;
  const parts = [days ? `${days} d` : '', hours || !days ? `${hours} h` : ''].filter(Boolean);
  return `${offsetMs < 0 ? '−' : '+'}${parts.join(' ')}`;
}
