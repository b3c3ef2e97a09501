import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button, Card, Field } from '../../../components/ui';
import { api } from '../../../lib/api';
import { chainDate, type AdvancedClock, type ChainClock } from '../../../lib/dx-types';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';

const STEPS: [string, number][] = [['1 hour', 3_600], ['1 day', 86_400], ['7 days', 7 * 86_400]];

/** '1 day' for a preset step, otherwise the hours asked for. */
function stepLabel(seconds: number): string {
  const preset = STEPS.find(([, s]) => s === seconds);
  if (preset) return preset[0];
  const hours = seconds / 3_600;
  return `${Number.isInteger(hours) ? hours : hours.toFixed(2)} hours`;
}

/** The devnet's test clock: null (nothing shown) wherever `GET /v1/test_helpers/clock` does not answer. */
export function useChainClock(enabled = true) {
  return useQuery({
    queryKey: ['test_clock'],
    queryFn: () => api.get<ChainClock>('/v1/test_helpers/clock'),
    enabled,
    retry: false,
    refetchInterval: (q) => (q.state.status === 'error' ? false : 15_000),
  });
}

/** Moves the devnet chain's time forward so reserve holds, expiries and deadlines pass as they would. */
export function TestClock() {
  const qc = useQueryClient();
  const clock = useChainClock();
  const [custom, setCustom] = useState('');
  const [customError, setCustomError] = useState<string | undefined>();
  const advance = useMutation({
    mutationFn: (seconds: number) => api.post<AdvancedClock>('/v1/test_helpers/advance_time', { seconds }),
    onSuccess: async (c) => {
      qc.setQueryData(['test_clock'], { chain_time: c.chain_time, block_number: c.block_number });
      await qc.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'test_clock' });
    },
  });
  if (!clock.data) return null;
  const submitCustom = (e: FormEvent) => {
    e.preventDefault();
    const hours = Number(custom);
    if (!custom.trim() || !Number.isFinite(hours) || hours <= 0) return setCustomError('A number of hours above 0.');
    setCustomError(undefined);
    advance.mutate(Math.round(hours * 3_600));
  };
  return (
    <Card title="Test clock" className="test-clock">
      <section aria-label="Test clock">
        <p className="muted test-clock-now">
          Chain time <strong data-testid="chain-time">{chainDate(clock.data.chain_time).toISOString().replace('T', ' ').slice(0, 19)} UTC</strong>
          {' '}· block {String(clock.data.block_number)} · local devnet only
        </p>
        <div className="test-clock-row" role="group" aria-label="Advance the chain's time">
          {STEPS.map(([label, seconds]) => (
            <Button key={label} size="sm" disabled={advance.isPending} onClick={() => advance.mutate(seconds)}>Advance {label}</Button>
          ))}
          <form className="test-clock-custom" onSubmit={submitCustom} noValidate>
            <Field label="Custom (hours)" name="advance_hours" inputMode="decimal" value={custom} onChange={(e) => setCustom(e.target.value)} error={customError} />
            <Button size="sm" type="submit" loading={advance.isPending}>Advance</Button>
          </form>
        </div>
        {advance.isSuccess && (
          <p className="muted" role="status">
            Moved forward {stepLabel(advance.variables)}; the chain's clock advanced {advance.data.advanced_by} s (blocks keep coming while it moves).
          </p>
        )}
        {advance.isError && <ApiErrorAlert error={advance.error} />}
      </section>
    </Card>
  );
}
