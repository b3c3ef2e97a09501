import { useMemo } from 'react';
import { qrPath } from './qr-path';

/**
 * A QR code as an inline <svg> element: React renders it like any other element, with no data: image and no
 * inline style or script, so the page's CSP (src/api/csp.ts) has nothing to allow. Colours are presentation
 * attributes, not style.
 */
export function QrCode({ value, label, px = 176 }: { value: string; label: string; px?: number }) {
  const { size, d } = useMemo(() => qrPath(value), [value]);
  return (
    <svg className="qr-code" role="img" aria-label={label} viewBox={`0 0 ${size} ${size}`} width={px} height={px} shapeRendering="crispEdges">
      <rect width={size} height={size} fill="#fff" />
      <path d={d} fill="#0a2540" />
    </svg>
  );
}
