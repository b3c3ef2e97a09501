import { useEffect, useRef, useState } from 'react';
import { formatDay } from '../../lib/format';
import { formatHuman, toBase } from '../../lib/money';

type Day = { day: string; gross: string; count: number };

/** Bars of confirmed gross per day, inline SVG. Heights come from base units (bigint), labels from strings. */
export function GrossChart({ days, loading }: { days: Day[] | undefined; loading: boolean }) {
  const [hover, setHover] = useState<number | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const [W, setW] = useState(720);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    // Draw in real pixels so labels are not stretched; the height is fixed, so nothing jumps.
    const ro = new ResizeObserver(([entry]) => entry && setW(Math.max(240, Math.round(entry.contentRect.width))));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const data = days ?? [];
  const H = 200;
  const pad = { top: 16, right: 8, bottom: 28, left: 8 };
  const values = data.map((d) => safeBase(d.gross));
  const max = values.reduce((m, v) => (v > m ? v : m), 0n);
  const slot = data.length ? (W - pad.left - pad.right) / data.length : 0;
  const barW = Math.max(4, Math.min(36, slot * 0.62));
  const plotH = H - pad.top - pad.bottom;
  const total = values.reduce((a, b) => a + b, 0n);
  const active = hover !== null ? data[hover] : null;

  return (
    <div className="chart" aria-busy={loading || undefined} ref={box}>
      <div className="chart-head">
        <span className="chart-total">{loading ? <span className="skeleton skeleton-lg" /> : `${formatHuman(toHuman(total))} USDC`}</span>
        <span className="muted chart-detail">{active ? `${formatDay(active.day)} · ${formatHuman(active.gross)} USDC · ${active.count} ${active.count === 1 ? 'order' : 'orders'}` : 'Total over 14 days'}</span>
      </div>
      <svg viewBox={`0 0 ${W} ${H}`} className="chart-svg" role="img" aria-label={data.length ? `Daily gross volume, ${data.length} days` : 'No volume yet'} >
        <line x1={pad.left} x2={W - pad.right} y1={H - pad.bottom} y2={H - pad.bottom} className="chart-axis" />
        <line x1={pad.left} x2={W - pad.right} y1={pad.top} y2={pad.top} className="chart-grid" />
        <line x1={pad.left} x2={W - pad.right} y1={pad.top + plotH / 2} y2={pad.top + plotH / 2} className="chart-grid" />
        {data.map((d, i) => {
          const v = values[i] ?? 0n;
          const h = max > 0n ? Math.max(v > 0n ? 3 : 0, Number((v * 1000n) / max) / 1000 * plotH) : 0;
          const x = pad.left + slot * i + (slot - barW) / 2;
          return (
            <g key={d.day} onMouseEnter={() => setHover(i)} onMouseLeave={() => setHover(null)}>
              <rect x={pad.left + slot * i} y={pad.top} width={slot} height={plotH} fill="transparent" />
              <rect x={x} y={H - pad.bottom - h} width={barW} height={h} rx={3} className={`chart-bar${hover === i ? ' hover' : ''}`}>
                <title>{`${d.day}: ${formatHuman(d.gross)} USDC (${d.count})`}</title>
              </rect>
              {(i % (slot < 44 ? 3 : slot < 70 ? 2 : 1) === 0) && (
                <text x={pad.left + slot * i + slot / 2} y={H - 8} textAnchor="middle" className="chart-label">{formatDay(d.day)}</text>
              )}
            </g>
          );
        })}
      </svg>
      {!loading && total === 0n && <p className="chart-empty muted"><span>No confirmed payments in the last 14 days.</span></p>}
    </div>
  );
}

function safeBase(s: string): bigint {
  try {
    return toBase(s);
  } catch {
    return 0n;
  }
}

function toHuman(base: bigint): string {
  const s = base.toString().padStart(7, '0');
  return `${s.slice(0, -6)}.${s.slice(-6)}`;
}
