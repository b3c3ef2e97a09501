import { useLayoutEffect, useRef, type ReactNode } from 'react';

/**
 * A list table. At a laptop width it is a table whose row actions stay in view (the actions column, whose header is a
 * screen-reader label, sticks to the card's right edge); at a phone width (styles: .table-stack) every row is a card of label: value lines. The labels
 * are the column headers, copied onto each cell as `data-label` (the stylesheet shows them), so a page writes its
 * header once and every row, also rows added later (paging, polling), carries them.
 */
export function Table({ label, className = '', children }: { label: string; className?: string; children: ReactNode }) {
  const ref = useRef<HTMLTableElement>(null);
  useLayoutEffect(() => {
    const table = ref.current;
    if (!table) return;
    labelCells(table);
    const observer = new MutationObserver(() => labelCells(table));
    observer.observe(table, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, []);
  return (
    <div className="table-scroll">
      <table ref={ref} className={`table table-stack ${className}`} aria-label={label}>{children}</table>
    </div>
  );
}

function labelCells(table: HTMLTableElement) {
  // A header that is only a screen-reader label ("Actions") marks the row's actions: no visible label, kept in view.
  const heads = [...table.querySelectorAll(':scope > thead > tr > th')].map((th) => ({
    text: (th.textContent ?? '').trim(),
    actions: th.children.length === 1 && th.firstElementChild!.classList.contains('sr-only'),
  }));
  for (const row of table.querySelectorAll<HTMLTableRowElement>(':scope > tbody > tr')) {
    const cells = [...row.cells];
    if (cells.some((c) => c.colSpan > 1)) continue;
    cells.forEach((cell, i) => {
      const head = heads[i];
      const text = head && !head.actions ? head.text : '';
      if (cell.dataset.label !== text) cell.dataset.label = text;
      if (head?.actions) cell.dataset.actions = '';
    });
  }
}
