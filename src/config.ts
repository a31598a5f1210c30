import path from 'node:path';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/**
 * Environment of the API and the worker, parsed once by zod.
 *
 * Durations are in seconds unless the name says otherwise. Every variable has an embedded default so that
 * `npm start` runs with no configuration at all. Throws a `ZodError` naming the bad variable.
 */
export const ConfigSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Public address used in links (payment links, deliverable URLs). Defaults to http://HOST:PORT. */
  PUBLIC_BASE_URL: z.string().url().optional(),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('agent-commerce'),
  MONGODB_URI: z.string().default('mongodb://127.0.0.1:27117/'),
  MONGODB_DB: z.string().default('agent_commerce'),
  DATA_DIR: z.string().default(path.resolve(__dirname, '..', '.data')),
  /** Content-addressed deliverable store; defaults to DATA_DIR/deliverables. */
  STORAGE_DIR: z.string().optional(),
  /** Shared secret of operators (wallet credits, engineer queue). Unset: operator endpoints answer 401. */
  OPERATOR_KEY: z.string().min(16).optional(),
  QUOTE_TTL_SECONDS: z.coerce.number().int().positive().default(24 * 3600),
  /** Unpaid orders expire after this long. */
  PAYMENT_DEADLINE_SECONDS: z.coerce.number().int().positive().default(24 * 3600),
  /** Delivered orders are accepted automatically after this long without a review (seed: review step). */
  REVIEW_WINDOW_SECONDS: z.coerce.number().int().positive().default(72 * 3600),
  IDEMPOTENCY_TTL_SECONDS: z.coerce.number().int().positive().default(24 * 3600),
  /** Development mode: allows loopback webhook targets and prints more. */
  DEV_MODE: bool.default(false),
});

/** Parsed configuration; see {@link ConfigSchema}. */
export type Config = Readonly<z.infer<typeof ConfigSchema> & { PUBLIC_BASE_URL: string; STORAGE_DIR: string }>;

/**
 * Parses the environment (or the given record) into a frozen {@link Config}.
 * @throws ZodError when a variable is malformed.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = ConfigSchema.parse(env);
  return Object.freeze({
    ...parsed,
    PUBLIC_BASE_URL: (parsed.PUBLIC_BASE_URL ?? `http://${parsed.HOST}:${parsed.PORT}`).replace(/\/$/, ''),
    STORAGE_DIR: parsed.STORAGE_DIR ?? path.join(parsed.DATA_DIR, 'deliverables'),
  });
}
