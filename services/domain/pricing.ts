import type { JobPrice } from './check-job.ts';

/**
 * What a pay-per-list job costs (docs/decisions.md §8): `list_small` up to 1,000 rows, `list_large` up to
 * 100,000, `custom` above. The amounts come from configuration; `custom` is the large price plus a
 * price per started 1,000 rows beyond 100,000, so the price never falls as a list grows.
 */
export interface PriceTable {
  list_small_cents: number;
  list_large_cents: number;
  custom_cents_per_1000_rows: number;
}

export const LIST_SMALL_MAX_ROWS = 1_000;
export const LIST_LARGE_MAX_ROWS = 100_000;
export const PRICE_CURRENCY = 'DKK';

export function priceFor(rowCount: number, table: PriceTable): JobPrice {
  if (rowCount <= LIST_SMALL_MAX_ROWS) return { product: 'list_small', amount_cents: table.list_small_cents, currency: PRICE_CURRENCY };
  if (rowCount <= LIST_LARGE_MAX_ROWS) return { product: 'list_large', amount_cents: table.list_large_cents, currency: PRICE_CURRENCY };
  const extraThousands = Math.ceil((rowCount - LIST_LARGE_MAX_ROWS) / 1000);
  return {
    product: 'custom',
    amount_cents: table.list_large_cents + extraThousands * table.custom_cents_per_1000_rows,
    currency: PRICE_CURRENCY,
  };
}

/** Whether a job waits for payment: live jobs of pay-per-list organisations (test keys are never billed). */
export function needsPayment(plan: 'annual' | 'pay_per_list', mode: 'live' | 'test'): boolean {
  return plan === 'pay_per_list' && mode === 'live';
}
