import { describe, expect, it } from 'vitest';
import { pagerLabel } from '../../web/src/pages/dashboard/shared/pager-label.js';

describe('dashboard pager label: a count only when the list fits one page (the list API gives no total)', () => {
  it('one page: the number of results', () => {
    expect(pagerLabel(1, 12, false, false)).toBe('12 results');
    expect(pagerLabel(1, 1, false, false)).toBe('1 result');
  });
  it('more pages: what is shown and whether more follow, never the page size as a total', () => {
    expect(pagerLabel(1, 25, false, true)).toBe('Page 1 · 25 shown, more');
    expect(pagerLabel(3, 7, true, false)).toBe('Page 3 · 7 shown');
  });
});
