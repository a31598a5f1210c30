/**
 * The product table (src/products/deliverables/products.ts) against the committed n8n-nodes-base snapshot, and its
 * field expressions against each product's own sample payload: the record fields a workflow maps must come out of
 * a real-shaped event (issue 13).
 */
import { N8N_NODE_TYPES, checkNodeUse, indexNodeTypes } from '../../src/products/micro/snapshot';
import { NODE_VERSIONS } from '../../src/products/deliverables/automation-wf';
import { PRODUCTS, findProduct, findProducts } from '../../src/products/deliverables/products';

const index = indexNodeTypes(N8N_NODE_TYPES);

/** Evaluates a field expression over `P` (the event) or `D` (a fetched record) as n8n would. */
function evaluate(code: string, P: unknown, D?: unknown): unknown {
  return new Function('P', 'D', `return (${code});`)(P, D);
}

describe('product table', () => {
  test.each(PRODUCTS.filter((p) => p.n8n).map((p) => [p.name, p] as const))(
    '%s: its n8n nodes exist in the pinned snapshot with these versions, roles, operations and events',
    (_name, p) => {
      if (p.n8n?.trigger)
        expect(
          checkNodeUse(index, {
            type: p.n8n.trigger.type,
            typeVersion: p.n8n.trigger.typeVersion,
            role: 'trigger',
            ...(p.n8n.trigger.events ? { events: p.n8n.trigger.events } : {}),
          }),
        ).toEqual([]);
      if (p.n8n?.action)
        expect(
          checkNodeUse(index, {
            type: p.n8n.action.type,
            typeVersion: p.n8n.action.typeVersion,
            role: 'action',
            operation: p.n8n.action.operation,
          }),
        ).toEqual([]);
    },
  );

  test.each(PRODUCTS.filter((p) => p.records).map((p) => [p.name, p] as const))(
    '%s: the further record kinds it creates as a target are operations of its n8n node',
    (_name, p) => {
      for (const r of p.records ?? []) {
        expect(
          checkNodeUse(index, {
            type: p.n8n!.action!.type,
            typeVersion: p.n8n!.action!.typeVersion,
            role: 'action',
            operation: r.operation,
          }),
        ).toEqual([]);
        expect(r.http.url).toMatch(/^https:\/\//);
        if (r.link) expect(r.http.body).toContain('$json.linked_id');
      }
    },
  );

  test('the node versions automation-wf writes exist in the snapshot', () => {
    const roles: Record<string, 'trigger' | 'helper'> = { webhook: 'trigger', scheduleTrigger: 'trigger' };
    for (const [name, version] of Object.entries(NODE_VERSIONS)) {
      expect(
        checkNodeUse(index, { type: `n8n-nodes-base.${name}`, typeVersion: version, role: roles[name] ?? 'helper' }),
      ).toEqual([]);
    }
  });

  test.each(PRODUCTS.filter((p) => p.webhook).map((p) => [p.name, p] as const))(
    '%s: the field expressions read its real sample payload',
    (_name, p) => {
      const hook = p.webhook!;
      const id = evaluate(hook.fields.external_id, hook.sample);
      expect(typeof id === 'string' && id.length > 0).toBe(true);
      if (hook.fetch) {
        // Reference-only events: the fetch URL comes from the event.
        expect(String(evaluate(hook.fetch.url, hook.sample))).toMatch(/^https:\/\//);
      } else if (JSON.stringify(hook.sample).includes('dana@example.com')) {
        expect(evaluate(hook.fields.email, hook.sample)).toBe('dana@example.com');
        expect(evaluate(hook.fields.name, hook.sample)).toBe('Dana Whitfield');
      }
    },
  );

  test('Typeform: answers are read by type and field.ref from form_response, not from top-level id/email', () => {
    const t = findProduct('Typeform')!;
    const sample = t.webhook!.sample as { form_response: { answers: unknown[] } };
    expect(evaluate(t.webhook!.fields.email, sample)).toBe('dana@example.com');
    expect(evaluate(t.webhook!.fields.phone!, sample)).toBe('+15555550142');
    expect(evaluate(t.webhook!.fields.external_id, sample)).toBe('a3a12ec67a1365927098a606107fac15');
    // Answers in another order still map.
    const shuffled = {
      ...sample,
      form_response: { ...sample.form_response, answers: [...sample.form_response.answers].reverse() },
    };
    expect(evaluate(t.webhook!.fields.name, shuffled)).toBe('Dana Whitfield');
  });

  test('names in free text find the real products, in the order written', () => {
    expect(findProducts('We use ServiceM8 for jobs, Xero for accounts and Gmail').map((p) => p.id)).toEqual([
      'servicem8',
      'xero',
      'gmail',
    ]);
    expect(findProduct('ship station')?.id).toBe('shipstation');
    expect(findProduct('our Zendesk help centre')?.capabilities).toContain('ticketing');
    expect(findProduct('Squarespace site')).toBeUndefined();
    expect(findProduct('Google Sheets')?.id).toBe('google-sheets');
  });

  test('practice and field-service tools buyers name are in the table with what they already do', () => {
    const cliniko = findProduct('Cliniko')!;
    expect(cliniko.capabilities).toEqual(
      expect.arrayContaining(['practice_management', 'scheduling', 'sms', 'invoicing']),
    );
    // Cliniko has no webhooks: polled, never a made-up payload; its API takes the key as the Basic auth user.
    expect(cliniko.webhook).toBeUndefined();
    expect(cliniko.polling).toMatch(/no webhooks/);
    expect(cliniko.http).toMatchObject({ kind: 'patients', method: 'POST' });
    expect(cliniko.auth).toMatch(/Basic auth/);
    for (const [name, id] of [
      ['Jane App', 'jane'],
      ['SimplePractice', 'simplepractice'],
      ['Mindbody', 'mindbody'],
      ['Jobber', 'jobber'],
      ['Housecall Pro', 'housecall-pro'],
      ['Square Appointments', 'square'],
      ['Acuity', 'acuity'],
    ])
      expect([name, findProduct(`We book in ${name}`)?.id]).toEqual([name, id]);
    expect(findProduct('Acuity Scheduling')?.n8n?.trigger?.type).toBe('n8n-nodes-base.acuitySchedulingTrigger');
    expect(findProducts('visual acuity tests and a housecall visit')).toEqual([]);
  });
});
