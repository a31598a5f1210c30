/**
 * Builds the text-generation port from configuration: the OpenAI-compatible adapter when `TEXTGEN_BASE_URL` and
 * `TEXTGEN_MODEL` are set, nothing otherwise (services that need a model are then refused at order creation).
 *
 * Source: issue 13.
 */
import type { Config } from '../config';
import { OpenAiCompatibleTextGenerator } from './openaiCompatible';
import type { TextGenerator } from './port';

export { OpenAiCompatibleTextGenerator, type OpenAiCompatibleOptions } from './openaiCompatible';
export {
  TextGenerationError,
  type TextGenerationErrorCode,
  type TextGenerator,
  type TextRequest,
  type TextResult,
} from './port';

type TextgenConfig = Pick<Config, 'TEXTGEN_BASE_URL' | 'TEXTGEN_MODEL' | 'TEXTGEN_API_KEY' | 'TEXTGEN_TIMEOUT_SECONDS'>;

/** Names of the variables still needed for a model (empty when one is configured). */
export function missingTextgenSettings(config: TextgenConfig): string[] {
  return [config.TEXTGEN_BASE_URL ? null : 'TEXTGEN_BASE_URL', config.TEXTGEN_MODEL ? null : 'TEXTGEN_MODEL'].filter(
    (v): v is string => v !== null,
  );
}

/** The configured model behind the port, or `undefined` when none is configured. */
export function createTextGenerator(config: TextgenConfig): TextGenerator | undefined {
  if (!config.TEXTGEN_BASE_URL || !config.TEXTGEN_MODEL) return undefined;
  return new OpenAiCompatibleTextGenerator({
    baseUrl: config.TEXTGEN_BASE_URL,
    model: config.TEXTGEN_MODEL,
    ...(config.TEXTGEN_API_KEY ? { apiKey: config.TEXTGEN_API_KEY } : {}),
    timeoutMs: config.TEXTGEN_TIMEOUT_SECONDS * 1000,
  });
}
