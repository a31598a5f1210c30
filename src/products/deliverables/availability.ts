/**
 * Whether this deployment can deliver a service at all, checked when the order is created (before any payment):
 * a service whose catalogue `constraints.requires` holds `text_generation_model` needs a language model, and
 * without one it is refused rather than delivered as a plan in place of the work.
 *
 * Source: issue 13 ("refuses the order up front with a clear 422 naming what is missing").
 */
import { ProblemError } from '../../errors';
import { TEXT_GENERATION_MODEL, bundleParts, type ServiceDefinition } from '../../domain/catalogue';

/**
 * Throws when the service needs something the deployment lacks.
 *
 * @param service - the catalogued service being ordered (a bundle needs what any of its parts needs).
 * @param missingTextgen - text-generation settings still unset (`TEXTGEN_BASE_URL`, `TEXTGEN_MODEL`); empty when a
 *   model is configured.
 * @throws ProblemError 422 `text_generation_unavailable` with `missing` (the settings) and `needed_by` (service ids).
 */
export function refuseUnavailableService(service: ServiceDefinition, missingTextgen: readonly string[]): void {
  if (missingTextgen.length === 0 || !service.constraints.requires?.includes(TEXT_GENERATION_MODEL)) return;
  const neededBy = bundleParts(service)
    .filter((p) => p.constraints.requires?.includes(TEXT_GENERATION_MODEL))
    .map((p) => p.id);
  const parts = service.bundle ? ` (its part${neededBy.length === 1 ? '' : 's'} ${neededBy.join(', ')})` : '';
  throw new ProblemError(
    422,
    'text_generation_unavailable',
    `${service.id}${parts} is written by a language model, and this deployment has none configured: set ${missingTextgen.join(' and ')} (an OpenAI-compatible chat-completions server). Services that need no model can be ordered as usual.`,
    { param: 'service_id', missing: [...missingTextgen], needed_by: neededBy },
  );
}
