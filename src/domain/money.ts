/**
 * Money arithmetic in integer micro-units.
 *
 * Amounts move internally as integer micro-units: 1 USD = 1,000,000 micros, the same factor as
 * USDC's smallest unit on eip155:8453. The public API shows USD numbers (e.g. `agent_price: 39`);
 * conversion happens at the edge with {@link usdToMicros} / {@link microsToUsd}. No floating-point
 * arithmetic is ever done on money: conversions go through the decimal text of the number and
 * percentages through `BigInt`.
 *
 * Source: seed §2.13 (amount = price_usd × 1,000,000), §8 (integers in USDC smallest units),
 * reference/api-conventions.md ("Money").
 */

/**
 * An amount of money in integer micro-units of USD (1 USD = 1,000,000; 1 micro = 1 USDC atomic unit).
 * Always a safe integer (`Number.isSafeInteger`), i.e. at most about 9.007 billion USD.
 */
export type Micros = number;

/** Micro-units per USD (and USDC atomic units per USDC). */
export const MICROS_PER_USD = 1_000_000;

/** Number of decimal places one micro-unit represents. */
export const MICRO_DECIMALS = 6;

const MICROS_PER_USD_BIG = 1_000_000n;

/**
 * Whether `value` is a valid {@link Micros} amount (a safe integer; negative values allowed, e.g. for
 * ledger debits).
 */
export function isMicros(value: unknown): value is Micros {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

/**
 * Throws unless `value` is a valid {@link Micros} amount.
 *
 * @param value - amount in micro-units.
 * @param what - name used in the error message.
 * @throws RangeError if `value` is not a safe integer.
 */
export function assertMicros(value: number, what = 'amount'): asserts value is Micros {
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`${what} must be a safe integer number of micro-units, got ${String(value)}`);
  }
}

/**
 * Parses the shortest decimal text of a finite non-negative number into an exact scaled `BigInt`
 * (value × 10^decimals), rounding half up beyond `decimals` places, or (`exact`) throwing a RangeError when digits
 * lie beyond them.
 */
function decimalToScaled(value: number, decimals: number, what: string, exact = false): bigint {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new RangeError(`${what} must be a finite number, got ${String(value)}`);
  }
  if (value < 0) {
    throw new RangeError(`${what} must not be negative, got ${String(value)}`);
  }
  // String(x) is the shortest decimal text that round-trips to x, e.g. "19.99", "0.3", "1e-7", "1.5e+21".
  const text = String(value);
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/i.exec(text);
  if (!match) {
    throw new RangeError(`${what} has an unsupported numeric form: ${text}`);
  }
  const intPart = match[1] ?? '0';
  const fracPart = match[2] ?? '';
  const exponent = Number(match[3] ?? '0');
  // digits × 10^(exponent - fracPart.length) is the exact decimal value.
  const digits = BigInt(intPart + fracPart);
  const shift = exponent - fracPart.length + decimals;
  if (shift >= 0) {
    return digits * 10n ** BigInt(shift);
  }
  const divisor = 10n ** BigInt(-shift);
  const quotient = digits / divisor;
  const remainder = digits % divisor;
  if (exact && remainder !== 0n) {
    throw new RangeError(`${what} has more than ${decimals} decimals: ${text}`);
  }
  // Round half up (values are non-negative, so this is also half away from zero).
  return remainder * 2n >= divisor ? quotient + 1n : quotient;
}

/**
 * Converts a USD amount to integer micro-units, exactly.
 *
 * The conversion parses the number's decimal text (what `String(usd)` prints), so values with up to
 * six decimals convert exactly (`0.3` → `300000`, `19.99` → `19990000`, `0.001` → `1000`). An amount
 * with digits beyond the sixth decimal (`1e-7`, `5e-324`, `1.0000005`) is refused, never rounded
 * (issue 10 §4): every USD input of the API goes through here or {@link isUsdAmount}.
 *
 * @param usd - amount in USD (a JSON number as the API shows it).
 * @returns the amount in micro-units (1 USD = 1,000,000).
 * @throws RangeError if `usd` is not finite, is negative, has more than six decimals, or the result is
 *   not a safe integer.
 * @example usdToMicros(49) === 49_000_000
 */
export function usdToMicros(usd: number): Micros {
  const scaled = decimalToScaled(usd, MICRO_DECIMALS, 'USD amount', true);
  if (scaled > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`USD amount ${String(usd)} is too large to represent in micro-units`);
  }
  return Number(scaled);
}

/**
 * Whether `usd` is a USD amount {@link usdToMicros} accepts: finite, non-negative, at most six decimals, at most
 * `Number.MAX_SAFE_INTEGER` micros. For input schemas (zod `refine`). Source: issue 10 §4.
 */
export function isUsdAmount(usd: number): boolean {
  try {
    usdToMicros(usd);
    return true;
  } catch {
    return false;
  }
}

/**
 * Converts integer micro-units to a USD number for display in the API (`19990000` → `19.99`).
 *
 * The division of an integer by 10^6 is correctly rounded, so the result is the same number that
 * parsing the exact decimal text would give; `usdToMicros(microsToUsd(m)) === m` for every valid `m`.
 *
 * @param m - amount in micro-units (safe integer, may be negative).
 * @returns the amount in USD.
 * @throws RangeError if `m` is not a safe integer.
 */
export function microsToUsd(m: Micros): number {
  assertMicros(m);
  return m / MICROS_PER_USD;
}

/**
 * Computes `percent`% of an amount, as integer micro-units.
 *
 * Arithmetic is exact (BigInt); the result is rounded to the nearest micro-unit, halves away from
 * zero. `percent` may carry up to six decimals (e.g. `2.5`); further digits are rounded first.
 *
 * @param m - amount in micro-units (safe integer, may be negative).
 * @param percent - percentage, finite and non-negative (`20` means 20 %; values above 100 allowed).
 * @returns the share in micro-units.
 * @throws RangeError if `m` is not a safe integer or `percent` is not finite and non-negative.
 * @example percentOf(39_000_000, 20) === 7_800_000
 * @example percentOf(5, 50) === 3 // 2.5 rounds half away from zero
 */
export function percentOf(m: Micros, percent: number): Micros {
  assertMicros(m);
  const scaledPercent = decimalToScaled(percent, MICRO_DECIMALS, 'percent');
  const denominator = 100n * MICROS_PER_USD_BIG;
  const numerator = BigInt(m) * scaledPercent;
  const negative = numerator < 0n;
  const abs = negative ? -numerator : numerator;
  let quotient = abs / denominator;
  if ((abs % denominator) * 2n >= denominator) quotient += 1n;
  const result = negative ? -quotient : quotient;
  if (result > BigInt(Number.MAX_SAFE_INTEGER) || result < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new RangeError(`${String(percent)}% of ${String(m)} micro-units is not a safe integer`);
  }
  return Number(result);
}

/**
 * Adds micro-unit amounts, checking that every operand and the total stay safe integers.
 *
 * @param amounts - amounts in micro-units.
 * @returns the sum in micro-units (0 for no operands).
 * @throws RangeError if an operand or the sum is not a safe integer.
 */
export function sumMicros(...amounts: Micros[]): Micros {
  let total = 0;
  for (const amount of amounts) {
    assertMicros(amount);
    total += amount;
    assertMicros(total, 'sum');
  }
  return total;
}

/**
 * Formats micro-units as a USD string for humans: a dollar sign, thousands separators, at least two
 * decimals and up to six when needed (`19_990_000` → `"$19.99"`, `1_000` → `"$0.001"`,
 * `1_234_500_000` → `"$1,234.50"`, `-5_000_000` → `"-$5.00"`).
 *
 * @param m - amount in micro-units.
 * @returns the formatted amount.
 * @throws RangeError if `m` is not a safe integer.
 */
export function formatUsd(m: Micros): string {
  assertMicros(m);
  const negative = m < 0;
  const abs = BigInt(Math.abs(m));
  const whole = (abs / MICROS_PER_USD_BIG).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  let fraction = (abs % MICROS_PER_USD_BIG).toString().padStart(MICRO_DECIMALS, '0');
  fraction = fraction.replace(/0+$/, '');
  if (fraction.length < 2) fraction = fraction.padEnd(2, '0');
  return `${negative ? '-' : ''}$${whole}.${fraction}`;
}
