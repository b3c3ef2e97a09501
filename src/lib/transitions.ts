import { AppError } from './errors.js';

/**
 * A resource's state machine: for each trigger, the states it may leave from and the state it reaches. Every
 * stateful resource has one (`<module>/state.ts`); repos write `state = to … WHERE state IN (from)` from it, so the
 * API, the sweepers and the indexer move a resource by the same rules.
 */
export type Transitions<S extends string, T extends string = string> = Record<T, { readonly from: readonly S[]; readonly to: S }>;

export const canMove = <S extends string, T extends string>(table: Transitions<S, T>, from: S, trigger: T): boolean =>
  table[trigger].from.includes(from);

/** 409 invalid_state naming the current state and the states the trigger (or the action that leads to it) needs. */
export function stateError<S extends string, T extends string>(what: string, table: Transitions<S, T>, current: S, trigger: T, action: string = trigger.replaceAll('_', ' ')): AppError {
  return new AppError('invalid_state', `${what} is ${current}; ${action} needs it to be ${table[trigger].from.join(' or ')}.`);
}
