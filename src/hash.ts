import { createHash } from 'node:crypto';

/** sha256 of bytes or UTF-8 text as lowercase hex (checksums, stored hashes of keys and tokens, idempotency ids). */
export const sha256Hex = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');
