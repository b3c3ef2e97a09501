import type { Hex } from 'viem';
import type { FlowStep } from './flows/context';

/**
 * Where the buyer's payment stands, shared by the hook that sends it (usePayment) and the one that follows it
 * to the required depth (useFollowPayment), so neither imports the other.
 */
export type Phase = 'idle' | 'switching' | FlowStep | 'submitted' | 'confirming' | 'confirmed' | 'reverted';

export type Progress = { phase: Phase; payHash: Hex | null; relayId: string | null; confirmations: number; error: string | null };
