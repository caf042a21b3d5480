import type { Locale } from '../domain/types.ts';

/**
 * The response locale from `Accept-Language` (docs/contract.md Errors): the highest-weighted of `da` and
 * `en`, matching language ranges such as `en-GB`; anything else, or no header, gives `da`.
 */
export function localeFrom(acceptLanguage: string | string[] | undefined): Locale {
  const header = Array.isArray(acceptLanguage) ? acceptLanguage.join(',') : acceptLanguage;
  if (!header) return 'da';
  let best: { locale: Locale; q: number } | null = null;
  for (const part of header.split(',')) {
    const [range, ...params] = part.trim().split(';');
    const language = range.trim().toLowerCase().split('-')[0];
    if (language !== 'da' && language !== 'en') continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q) || q <= 0) continue;
    if (!best || q > best.q) best = { locale: language, q };
  }
  return best?.locale ?? 'da';
}
