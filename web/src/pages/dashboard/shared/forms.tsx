import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api';
import type { List, Merchant } from '../../../lib/types';
import { Select } from '../../../components/ui';

/** Merchants to pick from (by external_id, which orders and sessions use as merchant_id). */
export function useMerchantOptions() {
  return useQuery({ queryKey: ['merchants', 'options'], queryFn: () => api.get<List<Merchant>>('/v1/merchants', { limit: 100 }) });
}

export function MerchantSelect({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  const merchants = useMerchantOptions();
  const options = (merchants.data?.data ?? []).map((m) => ({ value: m.external_id, label: `${m.name} (${m.external_id})` }));
  return (
    <Select
      label="Merchant"
      name="merchant_id"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      options={[{ value: '', label: merchants.isPending ? 'Loading merchants…' : options.length ? 'Choose a merchant' : 'No merchants yet' }, ...options]}
      hint={merchants.data && options.length === 0 ? 'Add a merchant under Merchants first.' : ''}
    />
  );
}

export type Errors = Record<string, string>;

/**
 * Every form's answer to a server error: the message under the field it names when the form shows that
 * field (`fields` are the ones with an error slot), otherwise in the form's alert, naming the field, so
 * no refusal is ever stored and shown nowhere.
 */
export function paramError(err: unknown, fields: readonly string[]): { field?: Errors; general?: string } {
  const e = err as { param?: string; message?: string };
  const message = e?.message || 'Something went wrong. Please try again.';
  if (e?.param && fields.includes(e.param)) return { field: { [e.param]: message } };
  return { general: e?.param ? `${message} (${e.param})` : message };
}

/** Basis points typed in a form: a whole number from 0 to 10000, else null. */
export function parseBps(v: string): number | null {
  if (!/^\d{1,5}$/.test(v.trim())) return null;
  const n = Number(v);
  return n >= 0 && n <= 10_000 ? n : null;
}
