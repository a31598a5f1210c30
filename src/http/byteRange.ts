/**
 * HTTP range requests (RFC 9110 §14), the single-range subset downloads answer (issue 25 §2).
 */
import type { ByteRange } from '../storage/deliverables';

/** What to answer a request for a representation of `size` bytes. */
export type RangeDecision =
  /** 200 with the whole representation: no `Range`, one this server ignores (several ranges, another unit, bad syntax), or a stale `If-Range`. */
  | { kind: 'full' }
  /** 206 with `range` (inclusive bounds, within the representation). */
  | { kind: 'partial'; range: ByteRange }
  /** 416 with `Content-Range: bytes *\/size`: the range starts past the end (or the representation is empty). */
  | { kind: 'unsatisfiable' };

const SINGLE = /^bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i;

/**
 * Decides on `Range` (and `If-Range`) for a representation of `size` bytes whose strong ETag is `etag`.
 * `bytes=a-b`, `bytes=a-` and the suffix `bytes=-n` are served; an `If-Range` other than `etag` (a date included:
 * downloads have no Last-Modified) asks for the whole representation. Never throws.
 */
export function decideRange(
  rangeHeader: string | undefined,
  ifRange: string | undefined,
  size: number,
  etag: string,
): RangeDecision {
  if (!rangeHeader) return { kind: 'full' };
  if (ifRange && ifRange.trim() !== etag) return { kind: 'full' };
  const m = SINGLE.exec(rangeHeader.trim());
  if (!m) return { kind: 'full' };
  const [, first = '', last = ''] = m;
  if (first === '' && last === '') return { kind: 'full' };
  if (first === '') {
    // Suffix: the last n bytes (all of them when n ≥ size).
    const n = Number(last);
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', range: { start: Math.max(0, size - n), end: size - 1 } };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return { kind: 'full' }; // invalid: RFC 9110 §14.1.1 says ignore it
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', range: { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) } };
}
