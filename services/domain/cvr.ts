/**
 * CVR numbers (the Danish company register's 8-digit id). The register's check: weights
 * 2,7,6,5,4,3,2,1 over the digits, the weighted sum divisible by 11. A CVR may be written with
 * spaces or dashes and a `DK` prefix (as on VAT invoices); the canonical form is the 8 digits.
 */
const WEIGHTS = [2, 7, 6, 5, 4, 3, 2, 1] as const;

/** The 8 digits of a CVR as written, or null when it is not 8 digits (after spaces, dashes, DK). */
export function canonicalCvr(text: string): string | null {
  if (typeof text !== 'string') return null;
  const digits = text.replace(/[\s-]/g, '').replace(/^DK/i, '');
  return /^\d{8}$/.test(digits) ? digits : null;
}

/** The register's modulus-11 check on 8 canonical digits. */
export function passesModulus11(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += WEIGHTS[i] * (digits.charCodeAt(i) - 48);
  return sum % 11 === 0;
}

/**
 * docs/decisions.md §3 reserves 00000000..00000099 for test keys' protected companies. Real CVR numbers
 * start at 10000000, so these never clash with a real company; they are accepted without the
 * check digit (most of them fail it) and in live mode are simply not in the register.
 */
export function isReservedTestCvr(digits: string): boolean {
  return digits.startsWith('000000');
}

export type CvrProblem = 'cvr_format' | 'cvr_check_digit';

/** Why a written CVR is not acceptable, or null when it is. */
export function cvrProblem(text: string): CvrProblem | null {
  const digits = canonicalCvr(text);
  if (digits === null) return 'cvr_format';
  if (isReservedTestCvr(digits) || passesModulus11(digits)) return null;
  return 'cvr_check_digit';
}

/** Makes the check digit of 7 leading digits, or null when none exists (remainder 1). For generators. */
export function cvrWithCheckDigit(sevenDigits: string): string | null {
  let sum = 0;
  for (let i = 0; i < 7; i++) sum += WEIGHTS[i] * (sevenDigits.charCodeAt(i) - 48);
  const check = (11 - (sum % 11)) % 11;
  return check === 10 ? null : sevenDigits + String(check);
}
