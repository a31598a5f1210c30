/**
 * Shared pieces of the engineering rubrics (docs/rubrics/*.md, issue 38 §4): generate a service's files as an order
 * would, and find placeholders left in them.
 */
import { getService } from '../../src/domain/catalogue';
import { generateDeliverables, type InputValue } from '../../src/products/deliverables';

/** File name → UTF-8 text. */
export type Files = Record<string, string>;

export const ISSUED = '2026-03-01T10:00:00.000Z';

/** The files of one (non-bundle) service for these inputs, as the fulfilment activity generates them. */
export function generate(serviceId: string, inputs: Record<string, InputValue>, bundleId?: string): Files {
  return Object.fromEntries(
    generateDeliverables({
      orderId: 'ord_rubric',
      serviceId,
      inputs,
      issuedAt: ISSUED,
      ...(bundleId ? { bundleId } : {}),
    }).map((f) => [f.name, f.content.toString('utf8')]),
  );
}

/** Every part of a bundle, generated from the bundle order's inputs. */
export function generateBundle(bundleId: string, inputs: Record<string, InputValue>): Record<string, Files> {
  return Object.fromEntries(
    (getService(bundleId)?.includes ?? []).map((part) => [part, generate(part, inputs, bundleId)]),
  );
}

/**
 * Placeholders a delivered file must never hold: fill-in markers (`REPLACE_WITH…`, `TODO`, `TBD`, `FIXME`), angle-bracket
 * blanks (`<robot ip>`, `<your-key>`), "to be confirmed" and the example.invalid host.
 */
const PLACEHOLDERS: [string, RegExp][] = [
  ['REPLACE_WITH', /REPLACE_WITH|\bREPLACE:/],
  ['TODO', /\bTODO\b/],
  ['TBD', /\bTBD\b/],
  ['FIXME', /\bFIXME\b/],
  ['<...>', /<(?!br\b|-|\/)[a-z][a-z0-9 _.-]{0,40}>/i],
  ['to be confirmed', /to be (?:confirmed|fixed in the design review)/i],
  ['example.invalid', /example\.invalid/],
];

/** The placeholders found, as `file: marker: excerpt`. */
export function placeholderHits(files: Files): string[] {
  const hits: string[] = [];
  for (const [name, body] of Object.entries(files)) {
    for (const [label, re] of PLACEHOLDERS) {
      const m = re.exec(body);
      if (m) hits.push(`${name}: ${label}: …${body.slice(Math.max(0, m.index - 40), m.index + 40)}…`);
    }
  }
  return hits;
}

/** fast-check run count of every rubric (each run generates a whole order). */
export const RUNS = 150;
