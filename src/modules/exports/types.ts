import type { Db } from '../../db/client.js';
import { formatUnits } from '../../lib/money.js';
import type { BalanceService } from '../balance/index.js';
import type { After, Range } from './repo.js';

/**
 * What a CSV column holds. `text` cells are escaped against formula injection (csv.ts `csvCell`); `amount`
 * (decimal string, human units), `integer` and `time` (ISO-8601 UTC) cells are written as they are.
 */
export type ColumnKind = 'text' | 'amount' | 'integer' | 'time';
export type Columns = readonly (readonly [name: string, kind: ColumnKind])[];

/** One export kind: its columns and how to read the page after a position (null when done). */
export type Page = { rows: unknown[][]; after: After | null };
export type PageDeps = { db: Db; balance: BalanceService; size: number };
export type PageReader = (deps: PageDeps, platformId: string, r: Range, after: After | null) => Promise<Page>;
export type ExportKindSpec = { columns: Columns; page: PageReader };

/** Base-unit strings of the JSON (the order split, refund portions) as human units, like every other CSV amount. */
export const units = (v: string) => formatUnits(BigInt(v));

/** Where the next page starts: after the last row of a full page; null after a short one. */
export const lastOf = <T extends { created_at: Date; id: string }>(rows: T[], size: number): After | null =>
  rows.length < size ? null : { time: rows.at(-1)!.created_at, id: rows.at(-1)!.id };
