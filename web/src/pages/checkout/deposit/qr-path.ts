import { create } from 'qrcode';

/** Modules of white border around the code: the QR specification's quiet zone, without which scanners miss it. */
const QUIET = 4;

/**
 * A QR code's dark modules as one SVG path ("M x y h1 v1 h-1 z" per module) and its side in modules, quiet zone
 * included. Pure (no React): the Chromium test draws the same path from the API's deposit address and compares.
 */
export function qrPath(text: string): { size: number; d: string } {
  const { modules } = create(text, { errorCorrectionLevel: 'M' });
  const n = modules.size;
  let d = '';
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) if (modules.get(y, x)) d += `M${x + QUIET} ${y + QUIET}h1v1h-1z`;
  }
  return { size: n + 2 * QUIET, d };
}
