/**
 * What the list holds, as far as the page knows: the list API is cursor-paged and gives no total, so only a list that
 * fits one page has a count ("12 results"); otherwise it says what is shown and whether more follow, never a page size.
 */
export function pagerLabel(page: number, count: number, hasPrev: boolean, hasNext: boolean): string {
  if (!hasPrev && !hasNext) return `${count} ${count === 1 ? 'result' : 'results'}`;
  return `Page ${page} · ${count} shown${hasNext ? ', more' : ''}`;
}
