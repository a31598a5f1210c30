/**
 * Deliverable generators: pure, deterministic producers of the files a buyer receives for each
 * non-bundle service. No I/O, no clock, no randomness — the same {@link DeliverableContext} always
 * yields byte-identical files, so a retried activity reproduces the same sha256 checksums.
 *
 * Services whose promise is language work declare language tasks (language.ts); {@link produceDeliverables} runs
 * them through the text-generation port and passes the replies to the generator.
 *
 * Bundles are fulfilled by the caller as one child per included service (each through
 * {@link generateDeliverables}, which derives a part's missing inputs from the bundle's inputs),
 * then {@link bundleManifest} lists every part's files and checksums.
 *
 * Source: seed §1 (deliverables, checksums), §2.1 (services and their inputs).
 */
import type { TextGenerator } from '../../textgen/port';
import { TextGenerationError } from '../../textgen/port';
import { getService } from '../../domain/catalogue';
import { agentDevelopmentDeliverables } from './agent-development';
import { aiReceptionistDeliverables, aiReceptionistLanguage } from './ai-receptionist';
import { automationAuditDeliverables, automationAuditLanguage } from './automation-audit';
import { automationWfDeliverables } from './automation-wf';
import { completeInputs } from './inputs';
import type { LanguageTask } from './language';
import { integrationProjectDeliverables } from './integration-project';
import { robotControlSystemDeliverables } from './robot-control-system';
import { smartConsultationDeliverables, smartConsultationLanguage } from './smart-consultation';
import { taskWorkerDeliverables, taskWorkerLanguage } from './task-worker';
import { DeliverableError, type DeliverableContext, type DeliverableFile, type DeliverableGenerator } from './types';
import { isSafeFileName } from './util';
import { websiteBookingDeliverables } from './website-booking';

export {
  bundleConnections,
  bundleDeliverables,
  bundleManifest,
  type BundleConnection,
  type BundlePart,
  type BundlePartFile,
} from './bundle';
export { completeInputs } from './inputs';
export { type LanguageTask } from './language';
export {
  DeliverableError,
  type DeliverableContext,
  type DeliverableFile,
  type DeliverableGenerator,
  type InputValue,
} from './types';
export {
  MEDIA_HTML,
  MEDIA_JSON,
  MEDIA_MARKDOWN,
  MEDIA_TEXT,
  MEDIA_YAML,
  escapeHtml,
  isSafeFileName,
  sha256OfBuffer,
  yamlString,
} from './util';

/** Generator per non-bundle service id. Source: seed §2.1. */
export const GENERATORS: Readonly<Record<string, DeliverableGenerator>> = Object.freeze({
  'ai-receptionist': aiReceptionistDeliverables,
  'website-booking': websiteBookingDeliverables,
  'automation-wf': automationWfDeliverables,
  'task-worker': taskWorkerDeliverables,
  'smart-consultation': smartConsultationDeliverables,
  'robot-control-system': robotControlSystemDeliverables,
  'agent-development': agentDevelopmentDeliverables,
  'integration-project': integrationProjectDeliverables,
  'automation-audit': automationAuditDeliverables,
});

/**
 * Generates the deliverable files of one non-bundle service.
 *
 * Inputs the service needs but the context lacks are derived from the other inputs (see
 * {@link completeInputs}), so a bundle's parts can be generated from the bundle order's inputs.
 * User text is escaped for its target format (HTML entities, JSON.stringify, YAML double-quoted
 * scalars, Markdown backslash escapes). File names are flat, prefixed with the service id and unique
 * within the service, hence within an order.
 *
 * @param ctx - order id, service id, inputs and the caller-chosen issue time (ISO 8601).
 * @returns the files, in a fixed order; content is UTF-8 text.
 * @throws DeliverableError `bundle_service` for a bundle id (generate its parts instead),
 *   `unknown_service` for an id outside the catalogue.
 * Source: seed §1, §2.1.
 */
export function generateDeliverables(ctx: DeliverableContext): DeliverableFile[] {
  const service = getService(ctx.serviceId);
  if (!service) throw new DeliverableError('unknown_service', `Unknown service ${ctx.serviceId}`);
  if (service.bundle === true) {
    throw new DeliverableError(
      'bundle_service',
      `${ctx.serviceId} is a bundle: generate each included service (${(service.includes ?? []).join(', ')}) and then bundleManifest`,
    );
  }
  const generator = GENERATORS[ctx.serviceId];
  if (!generator) throw new DeliverableError('unknown_service', `No deliverable generator for ${ctx.serviceId}`);
  const files = generator({ ...ctx, inputs: completeInputs(ctx.serviceId, ctx.inputs) });
  const seen = new Set<string>();
  for (const f of files) {
    if (!isSafeFileName(f.name) || seen.has(f.name))
      throw new DeliverableError(
        'invalid_file',
        `Generator for ${ctx.serviceId} produced an invalid or duplicate file name: ${f.name}`,
      );
    seen.add(f.name);
  }
  return files;
}

/** How many times a task is asked before its replies are judged unusable (the first ask and two with the reasons). */
export const LANGUAGE_ASKS = 3;

/**
 * Asks `task` until a reply matches its schema and passes its check, at most {@link LANGUAGE_ASKS} times; each new
 * ask carries the reasons the previous reply was refused.
 * @throws TextGenerationError `unusable` (not retryable: asking the same again gives the same) after the last ask;
 *   the port's errors as they come.
 */
async function askUntilUsable(textgen: TextGenerator, task: LanguageTask): Promise<{ value: unknown; model: string }> {
  let reasons: string[] = [];
  for (let ask = 1; ask <= LANGUAGE_ASKS; ask += 1) {
    const request =
      reasons.length === 0
        ? task.request
        : {
            ...task.request,
            prompt: `${task.request.prompt}\n\nYour previous answer was refused: ${reasons.join('; ')}. Answer again with the finished work.`,
          };
    const reply = await textgen.generate(request);
    const parsed = task.schema.safeParse(reply.value);
    reasons = parsed.success
      ? (task.check?.(parsed.data) ?? [])
      : parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`);
    if (reasons.length === 0) return { value: parsed.data, model: reply.model };
  }
  throw new TextGenerationError(
    'unusable',
    `The model's reply to ${task.key} was refused ${LANGUAGE_ASKS} times: ${reasons.slice(0, 5).join('; ')}`,
    false,
  );
}

/** Language tasks per service (language.ts says which services need a model and why). Source: issue 13. */
export const LANGUAGE_TASKS: Readonly<Record<string, (ctx: DeliverableContext) => LanguageTask[]>> = Object.freeze({
  'task-worker': taskWorkerLanguage,
  'smart-consultation': smartConsultationLanguage,
  'ai-receptionist': aiReceptionistLanguage,
  'automation-audit': automationAuditLanguage,
});

/** The language tasks of one non-bundle service for these inputs (completed as {@link generateDeliverables} does). */
export function languageTasks(ctx: DeliverableContext): LanguageTask[] {
  const build = LANGUAGE_TASKS[ctx.serviceId];
  return build ? build({ ...ctx, inputs: completeInputs(ctx.serviceId, ctx.inputs) }) : [];
}

/**
 * Produces one non-bundle service's files: runs its language tasks through `textgen` (when it has any), checks each
 * reply against the task's schema, then calls {@link generateDeliverables} with the replies.
 *
 * An optional task is skipped without a model or when the model fails; a required one fails the delivery.
 *
 * @param textgen - the configured model, or undefined when none is.
 * @throws TextGenerationError `unavailable` (not retryable) when a required task has no model; the port's errors
 *   for required tasks (retryable or not); `unusable` (not retryable) when {@link LANGUAGE_ASKS} replies in a row
 *   fail the task's schema or its check (empty, placeholder, generic, not what was asked: issue 38 §5).
 * @throws DeliverableError as {@link generateDeliverables}.
 * Source: seed §1, §2.1; issue 13.
 */
export async function produceDeliverables(
  ctx: DeliverableContext,
  textgen: TextGenerator | undefined,
): Promise<DeliverableFile[]> {
  const language: NonNullable<DeliverableContext['language']> = {};
  for (const task of languageTasks(ctx)) {
    if (!textgen) {
      if (task.required)
        throw new TextGenerationError(
          'unavailable',
          `${ctx.serviceId} needs a text-generation model and none is configured (TEXTGEN_BASE_URL, TEXTGEN_MODEL)`,
          false,
        );
      continue;
    }
    try {
      language[task.key] = await askUntilUsable(textgen, task);
    } catch (err) {
      if (task.required) throw err;
      // Optional wording: the deterministic deliverable stands on its own.
    }
  }
  return generateDeliverables(Object.keys(language).length > 0 ? { ...ctx, language } : ctx);
}
