import type { SettlementsTable } from '../../db/schema.js';
import type { Transitions } from '../../lib/transitions.js';
import type { ItemState } from './repo.js';

type SettlementState = SettlementsTable['state'];

/** A batch: submitted until BatchSettled is indexed (confirmed, even after the service gave up: chain wins) or the send fails for good. */
export const SETTLEMENT_TRANSITIONS = {
  confirm: { from: ['submitted', 'failed'], to: 'confirmed' },
  fail: { from: ['submitted'], to: 'failed' },
} as const satisfies Transitions<SettlementState, 'confirm' | 'fail'>;

/** An order's line in a batch: released or refused by the token per ReserveReleased/-Failed, skipped when the batch confirms without it. */
export const SETTLEMENT_ITEM_TRANSITIONS = {
  release: { from: ['included', 'batch_failed'], to: 'released' },
  release_fail: { from: ['included'], to: 'release_failed' },
  batch_fail: { from: ['included'], to: 'batch_failed' },
  skip: { from: ['included'], to: 'skipped' },
} as const satisfies Transitions<ItemState, 'release' | 'release_fail' | 'batch_fail' | 'skip'>;
