/**
 * The failure converter of a deployment that encrypts payloads (issue 26 §1): a failure's message and stack trace move
 * into its `encodedAttributes`, a payload the codec encrypts like any other, so an Update's refusal ("Wallet … holds …
 * micro-USD"), an activity's error or a workflow's failure is no text in clear in the history. Decoding needs nothing:
 * every SDK client reads `encodedAttributes` back (after the codec) into the error's message.
 *
 * Loaded by path (ENCRYPTED_FAILURE_CONVERTER_PATH): in the workflow bundle (`failureConverterPath` of the bundle
 * options, worker/bundle.ts) and by every worker and client with the codec (src/temporal/codec.ts). Workflow-safe:
 * imports `@temporalio/common` only.
 */
import { DefaultFailureConverter } from '@temporalio/common';

/** The converter the SDK loads from this module (`failureConverter` is the export name it requires). */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
