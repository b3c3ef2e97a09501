import { chargedAmount } from '../../../lib/capture';
import { formatBase, formatHuman } from '../../../lib/money';
import type { Order } from '../../../lib/types';

/** The split as a bar and a legend; for an authorization not captured yet, the split of capturing all of it. */
export function SplitBar({ order }: { order: Order }) {
  const s = order.computed_split;
  const parts: [string, string, string][] = [
    ['Service fee', s.service_fee, 'seg-service'],
    ['Platform fee', s.platform_fee, 'seg-platform'],
    ['Merchant, available now', s.merchant_available, 'seg-merchant'],
    ['Merchant, held in reserve', s.reserve_hold, 'seg-reserve'],
  ];
  const total = parts.reduce((a, [, v]) => a + BigInt(v || '0'), 0n);
  return (
    <div className="split">
      <div className="split-bar" role="img" aria-label="Split of the payment">
        {parts.map(([label, v, cls]) => {
          const pct = total > 0n ? Number((BigInt(v || '0') * 10000n) / total) / 100 : 0;
          return pct > 0 ? <span key={label} className={`seg ${cls}`} style={{ width: `${pct}%` }} title={`${label}: ${formatBase(v)} USDC`} /> : null;
        })}
      </div>
      <table className="split-legend">
        <tbody>
          {parts.map(([label, v, cls]) => (
            <tr key={label}><th scope="row"><span className={`swatch ${cls}`} aria-hidden="true" />{label}</th><td className="num">{formatBase(v)} USDC</td></tr>
          ))}
          <tr className="split-total"><th scope="row">Merchant gross</th><td className="num">{formatBase(s.merchant_gross)} USDC</td></tr>
          <tr className="split-total"><th scope="row">{order.state === 'authorized' ? 'Total authorized' : 'Total paid'}</th><td className="num">{formatHuman(chargedAmount(order))} USDC</td></tr>
        </tbody>
      </table>
    </div>
  );
}
