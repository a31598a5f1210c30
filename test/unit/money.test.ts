import {
  MICROS_PER_USD,
  formatUsd,
  isMicros,
  microsToUsd,
  percentOf,
  sumMicros,
  usdToMicros,
} from '../../src/domain/money';

describe('usdToMicros', () => {
  it.each([
    [0, 0],
    [1, 1_000_000],
    [0.3, 300_000],
    [0.1, 100_000],
    [0.001, 1_000],
    [19.99, 19_990_000],
    [49, 49_000_000],
    [1.1, 1_100_000],
    [0.000001, 1],
    [123456.789012, 123_456_789_012],
    [362, 362_000_000],
  ])('converts %p USD exactly to %p micros', (usd, micros) => {
    expect(usdToMicros(usd)).toBe(micros);
  });

  it('avoids the float drift of a plain multiplication', () => {
    expect(1.005 * MICROS_PER_USD).not.toBe(1_005_000); // 1004999.9999999999
    expect(8.2 * MICROS_PER_USD).not.toBe(8_200_000); // 8199999.999999999
    expect(usdToMicros(8.2)).toBe(8_200_000);
    expect(usdToMicros(0.3)).toBe(300_000);
    expect(usdToMicros(1.005)).toBe(1_005_000);
    expect(usdToMicros(4.35)).toBe(4_350_000);
  });

  it('refuses digits beyond the sixth decimal instead of rounding them (issue 10 §4)', () => {
    for (const usd of [0.0000004, 0.0000005, 1.0000005, 2.1234564, 1e-7, 5e-324, Number.MIN_VALUE]) {
      expect(() => usdToMicros(usd)).toThrow(/more than 6 decimals/);
    }
    expect(usdToMicros(1e-6)).toBe(1);
    expect(usdToMicros(1.5e-5)).toBe(15);
  });

  it('rejects non-finite, negative and too large amounts', () => {
    expect(() => usdToMicros(Number.NaN)).toThrow(RangeError);
    expect(() => usdToMicros(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => usdToMicros(-1)).toThrow(RangeError);
    expect(() => usdToMicros(1e10)).toThrow(RangeError);
  });
});

describe('microsToUsd', () => {
  it('converts back to the USD number the API shows', () => {
    expect(microsToUsd(19_990_000)).toBe(19.99);
    expect(microsToUsd(300_000)).toBe(0.3);
    expect(microsToUsd(1_000)).toBe(0.001);
    expect(microsToUsd(-5_000_000)).toBe(-5);
  });

  it('round-trips with usdToMicros', () => {
    for (const m of [0, 1, 999, 1_000, 300_000, 19_990_000, 123_456_789_012, 7_800_000]) {
      expect(usdToMicros(microsToUsd(m))).toBe(m);
    }
  });

  it('rejects non-integers', () => {
    expect(() => microsToUsd(1.5)).toThrow(RangeError);
    expect(() => microsToUsd(Number.NaN)).toThrow(RangeError);
  });
});

describe('percentOf', () => {
  it('computes the partner commission exactly', () => {
    expect(percentOf(39_000_000, 20)).toBe(7_800_000);
    expect(percentOf(299_000_000, 20)).toBe(59_800_000);
    expect(percentOf(1_000_000, 20)).toBe(200_000);
  });

  it('rounds to the nearest micro, halves away from zero', () => {
    expect(percentOf(5, 50)).toBe(3);
    expect(percentOf(-5, 50)).toBe(-3);
    expect(percentOf(1, 20)).toBe(0);
    expect(percentOf(3, 50)).toBe(2);
    expect(percentOf(333, 33.3)).toBe(111); // 110.889
  });

  it('accepts fractional percentages', () => {
    expect(percentOf(1_000_000, 2.5)).toBe(25_000);
    expect(percentOf(1_000_000, 0.1)).toBe(1_000);
  });

  it('rejects invalid operands', () => {
    expect(() => percentOf(1.5, 10)).toThrow(RangeError);
    expect(() => percentOf(100, -1)).toThrow(RangeError);
    expect(() => percentOf(100, Number.NaN)).toThrow(RangeError);
  });
});

describe('formatUsd and helpers', () => {
  it('formats micros for humans', () => {
    expect(formatUsd(19_990_000)).toBe('$19.99');
    expect(formatUsd(49_000_000)).toBe('$49.00');
    expect(formatUsd(1_000)).toBe('$0.001');
    expect(formatUsd(1)).toBe('$0.000001');
    expect(formatUsd(1_234_500_000)).toBe('$1,234.50');
    expect(formatUsd(-5_000_000)).toBe('-$5.00');
    expect(formatUsd(0)).toBe('$0.00');
  });

  it('sums safely', () => {
    expect(sumMicros(1, 2, 3)).toBe(6);
    expect(sumMicros()).toBe(0);
    expect(() => sumMicros(Number.MAX_SAFE_INTEGER, 1)).toThrow(RangeError);
  });

  it('recognises micro amounts', () => {
    expect(isMicros(5)).toBe(true);
    expect(isMicros(0.5)).toBe(false);
    expect(isMicros('5')).toBe(false);
  });
});
