/**
 * Charge later in the dashboard's create forms (new order, new checkout link): `capture_method: "manual"` and
 * the capture window `capture_within_seconds`, checked here exactly as the API checks it (whole seconds from
 * CAPTURE_WITHIN_MIN_SECONDS to CAPTURE_WITHIN_MAX_SECONDS; src/modules/orders/schemas.ts, kept equal by
 * test/unit/web-charge-later.test.ts). The form asks for whole hours or days, so every value it sends is one the
 * API accepts and every value the API accepts in hours or days can be typed.
 */
export const CAPTURE_WITHIN_MIN_SECONDS = 3_600;
export const CAPTURE_WITHIN_MAX_SECONDS = 2_592_000;
export const CAPTURE_WITHIN_DEFAULT_SECONDS = 604_800;

export const UNIT_SECONDS = { hours: 3_600, days: 86_400 } as const;
export type CaptureUnit = keyof typeof UNIT_SECONDS;

export type ChargeLater = { enabled: boolean; within: string; unit: CaptureUnit };
export const CHARGE_LATER_OFF: ChargeLater = { enabled: false, within: String(CAPTURE_WITHIN_DEFAULT_SECONDS / UNIT_SECONDS.days), unit: 'days' };

export const CAPTURE_LIMITS = 'From 1 hour to 30 days (720 hours) after the payment deadline; default 7 days.';

/** The window in seconds, or the message the form shows under the field. */
export function captureWithinSeconds(c: Pick<ChargeLater, 'within' | 'unit'>): { seconds: number } | { error: string } {
  const v = c.within.trim();
  if (!/^\d{1,6}$/.test(v)) return { error: `A whole number of ${c.unit}.` };
  const seconds = Number(v) * UNIT_SECONDS[c.unit];
  if (seconds < CAPTURE_WITHIN_MIN_SECONDS) return { error: 'At least 1 hour.' };
  if (seconds > CAPTURE_WITHIN_MAX_SECONDS) return { error: 'At most 30 days (720 hours).' };
  return { seconds };
}

/** The error for the form's `capture_within_seconds` slot (null when charge later is off or the window is valid). */
export function chargeLaterError(c: ChargeLater): string | null {
  if (!c.enabled) return null;
  const r = captureWithinSeconds(c);
  return 'error' in r ? r.error : null;
}

/**
 * The request fields: none when off (the API's default, automatic capture, so the request is what it always
 * was), else `capture_method: "manual"` with the window. Call after chargeLaterError returned null.
 */
export function chargeLaterBody(c: ChargeLater): { capture_method?: 'manual'; capture_within_seconds?: number } {
  if (!c.enabled) return {};
  const r = captureWithinSeconds(c);
  if ('error' in r) throw new Error(r.error);
  return { capture_method: 'manual', capture_within_seconds: r.seconds };
}

/** "7 days", "1 day", "36 hours": the window as the form states it back. */
export function describeWindow(c: Pick<ChargeLater, 'within' | 'unit'>): string | null {
  const r = captureWithinSeconds(c);
  if ('error' in r) return null;
  const n = Number(c.within.trim());
  return `${n} ${n === 1 ? c.unit.slice(0, -1) : c.unit}`;
}
