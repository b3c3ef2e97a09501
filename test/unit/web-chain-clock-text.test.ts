import { describe, expect, it } from 'vitest';
import { chainClockText } from '../../web/src/pages/dashboard/shell/chain-clock-text.js';

const H = 3_600_000;
const D = 24 * H;

describe('dashboard chain clock note: the offset to the hour', () => {
  it('whole days, days and hours, hours', () => {
    expect(chainClockText(40 * D)).toBe('+40 d');
    expect(chainClockText(2 * D + 3 * H)).toBe('+2 d 3 h');
    expect(chainClockText(5 * H)).toBe('+5 h');
  });
  it('a chain a little behind a whole day reads that day, not "39 d 24 h"', () => {
    expect(chainClockText(40 * D - 1_500)).toBe('+40 d');
    expect(chainClockText(40 * D - 20 * 60_000)).toBe('+40 d');
    expect(chainClockText(D - 1)).toBe('+1 d');
  });
  it('a clock behind the browser: one minus sign, not "−-1 d"', () => {
    expect(chainClockText(-D)).toBe('−1 d');
    expect(chainClockText(-(D + 2 * H))).toBe('−1 d 2 h');
  });
});
