import { useQuery } from '@tanstack/react-query';
import { formatEther } from 'viem';
import { Card, SkeletonRows } from '../../../components/ui';
import { api } from '../../../lib/api';
import type { GaslessUsage } from '../../../lib/types';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';
import { Table } from '../../../components/Table';

/**
 * Today's gasless relays for this platform (UTC day, chain clock): paid or in flight, failed (the relayer paid
 * for the reverted ones), requests refused for a banned payer, and the ETH the relayer spent.
 */
export function GaslessCard() {
  const usage = useQuery({ queryKey: ['gasless-usage'], queryFn: () => api.get<GaslessUsage>('/v1/gasless/usage') });
  const today = new Date().toISOString().slice(0, 10);
  const day = usage.data?.days.find((d) => d.day === today) ?? { relays: 0, reverted: 0, refused: 0, gas_cost_wei: '0' };
  return (
    <Card title="Gasless" padded={false}>
      {usage.isError ? (
        <div className="card-body"><ApiErrorAlert error={usage.error} /></div>
      ) : (
        <Table label="Gasless relays today">
            <thead><tr><th scope="col">Today</th><th scope="col">Relays</th><th scope="col">Reverted</th><th scope="col">Refused</th><th scope="col">ETH spent</th></tr></thead>
            <tbody>
              {usage.isPending ? <SkeletonRows cols={5} rows={1} /> : (
                <tr data-gasless-day={today}>
                  <td className="muted nowrap">{usage.data.enabled ? `cap ${usage.data.daily_cap} · from ${usage.data.min_amount} USDC` : 'Off'}</td>
                  <td>{day.relays}</td>
                  <td>{day.reverted}</td>
                  <td>{day.refused}</td>
                  <td className="nowrap">{formatEther(BigInt(day.gas_cost_wei))}</td>
                </tr>
              )}
            </tbody>
          </Table>
      )}
    </Card>
  );
}
