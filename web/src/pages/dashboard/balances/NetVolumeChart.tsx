import { useEffect, useRef, useState } from 'react';
import { formatDay } from '../../../lib/format';
import { formatHuman, toBase } from '../../../lib/money';
import type { NetVolume } from '../../../lib/types';

const safeBase = (s: string) => {
  try {
    return toBase(s);
  } catch {
    return 0n;
  }
};

/**
 * Net volume per day (gross minus refunds, from /v1/balance/net_volume) as inline SVG bars; a day whose
 * refunds exceed its payments goes below the axis. Heights come from base units (bigint), labels from the
 * API's decimal strings.
 */
export function NetVolumeChart({ volume, loading }: { volume: NetVolume | undefined; loading: boolean }) {
  const [hover, setHover] = useState<number | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const [W, setW] = useState(720);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(([entry]) => entry && setW(Math.max(240, Math.round(entry.contentRect.width))));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const data = volume?.data ?? [];
  const H = 200;
  const pad = { top: 16, right: 8, bottom: 28, left: 8 };
  const values = data.map((d) => safeBase(d.net));
  const abs = (v: bigint) => (v < 0n ? -v : v);
  const maxUp = values.reduce((m, v) => (v > m ? v : m), 0n);
  const maxDown = values.reduce((m, v) => (v < 0n && abs(v) > m ? abs(v) : m), 0n);
  const span = maxUp + maxDown;
  const plotH = H - pad.top - pad.bottom;
  const axisY = pad.top + (span > 0n ? Number((maxUp * 1000n) / span) / 1000 : 1) * plotH;
  const slot = data.length ? (W - pad.left - pad.right) / data.length : 0;
  const barW = Math.max(2, Math.min(28, slot * 0.62));
  const active = hover !== null ? data[hover] : null;
  const every = slot < 20 ? 14 : slot < 44 ? 3 : slot < 70 ? 2 : 1;
  return (
    <div className="chart" aria-busy={loading || undefined} ref={box}>
      <div className="chart-head">
        <span className="chart-total" data-testid="net-volume-total">{loading || !volume ? <span className="skeleton skeleton-lg" /> : `${formatHuman(volume.net)} USDC`}</span>
        <span className="muted chart-detail">
          {active
            ? `${formatDay(active.day)} · net ${formatHuman(active.net)} · gross ${formatHuman(active.gross)} · refunded ${formatHuman(active.refunded)} USDC`
            : volume ? `Net over ${volume.days} days: gross ${formatHuman(volume.gross)} − refunds ${formatHuman(volume.refunded)} USDC` : ''}
        </span>
      </div>
      <svg viewBox={`0 0 ${W} ${H}`} className="chart-svg" role="img" aria-label={data.length ? `Daily net volume, ${data.length} days` : 'No volume yet'}>
        <line x1={pad.left} x2={W - pad.right} y1={axisY} y2={axisY} className="chart-axis" />
        {data.map((d, i) => {
          const v = values[i] ?? 0n;
          const h = span > 0n ? Math.max(v !== 0n ? 2 : 0, (Number((abs(v) * 1000n) / span) / 1000) * plotH) : 0;
          const x = pad.left + slot * i + (slot - barW) / 2;
          return (
            <g key={d.day} onMouseEnter={() => setHover(i)} onMouseLeave={() => setHover(null)}>
              <rect x={pad.left + slot * i} y={pad.top} width={slot} height={plotH} fill="transparent" />
              <rect x={x} y={v < 0n ? axisY : axisY - h} width={barW} height={h} rx={2} className={`chart-bar${v < 0n ? ' chart-bar-negative' : ''}${hover === i ? ' hover' : ''}`}>
                <title>{`${d.day}: net ${formatHuman(d.net)} USDC (gross ${formatHuman(d.gross)}, refunded ${formatHuman(d.refunded)})`}</title>
              </rect>
              {i % every === 0 && <text x={pad.left + slot * i + slot / 2} y={H - 8} textAnchor="middle" className="chart-label">{formatDay(d.day)}</text>}
            </g>
          );
        })}
      </svg>
      {!loading && volume && values.every((v) => v === 0n) && data.every((d) => d.payments === 0 && d.refunds === 0) && (
        <p className="chart-empty muted"><span>No payments or refunds in the last {volume.days} days.</span></p>
      )}
    </div>
  );
}
