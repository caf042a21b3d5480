import { describe, expect, it } from 'vitest';
import { needsPayment, priceFor } from '../../../services/domain/pricing.ts';

const table = { list_small_cents: 49_500, list_large_cents: 249_500, custom_cents_per_1000_rows: 2_000 };

describe('pay-per-list prices (docs/decisions.md §8)', () => {
  it('list_small up to 1,000 rows, list_large up to 100,000, custom above', () => {
    expect(priceFor(0, table)).toEqual({ product: 'list_small', amount_cents: 49_500, currency: 'DKK' });
    expect(priceFor(500, table)).toEqual({ product: 'list_small', amount_cents: 49_500, currency: 'DKK' });
    expect(priceFor(1_000, table).product).toBe('list_small');
    expect(priceFor(1_001, table)).toEqual({ product: 'list_large', amount_cents: 249_500, currency: 'DKK' });
    expect(priceFor(50_000, table).product).toBe('list_large');
    expect(priceFor(100_000, table).product).toBe('list_large');
    expect(priceFor(100_001, table)).toEqual({ product: 'custom', amount_cents: 249_500 + 2_000, currency: 'DKK' });
    expect(priceFor(500_000, table)).toEqual({ product: 'custom', amount_cents: 249_500 + 400 * 2_000, currency: 'DKK' });
  });

  it('never falls as a list grows', () => {
    let last = 0;
    for (let rows = 0; rows <= 300_000; rows += 997) {
      const { amount_cents } = priceFor(rows, table);
      expect(amount_cents).toBeGreaterThanOrEqual(last);
      last = amount_cents;
    }
  });

  it('only live jobs of pay-per-list organisations wait for payment', () => {
    expect(needsPayment('pay_per_list', 'live')).toBe(true);
    expect(needsPayment('pay_per_list', 'test')).toBe(false);
    expect(needsPayment('annual', 'live')).toBe(false);
  });
});
