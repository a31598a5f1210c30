/**
 * Issue 24 §5, the pure parts: which services a deployment can sell (src/domain/discovery.ts), how discovery marks
 * and procurement plans around the others (src/domain/procurement.ts), how a workflow failing on a coded refusal
 * becomes a 4xx (src/temporal/procurements.ts), and the buyer-facing form of a failed x402 settlement
 * (src/x402/settlementFailure.ts).
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { getService } from '../../src/domain/catalogue';
import { DiscoveryQuery, discoverServices, serviceUnavailability } from '../../src/domain/discovery';
import { planProcurement, type ProcurementAsk } from '../../src/domain/procurement';
import { ProblemError } from '../../src/errors';
import { procurementFailureProblem } from '../../src/temporal/procurements';
import { encodePaymentResponse } from '../../src/x402/headers';
import {
  buyerFacingSettleResponse,
  settlementFailureDetail,
  settlementReasonCode,
} from '../../src/x402/settlementFailure';

const NO_MODEL = { missingTextgen: ['TEXTGEN_BASE_URL', 'TEXTGEN_MODEL'] };
const WITH_MODEL = { missingTextgen: [] };
const service = (id: string) => {
  const s = getService(id);
  if (!s) throw new Error(`no ${id}`);
  return s;
};
const ask = (over: Partial<ProcurementAsk>): ProcurementAsk => ({
  requirements: [],
  budgetMicros: 100_000_000,
  autoPurchase: true,
  ...over,
});

describe('what a deployment can sell', () => {
  test('model-written services and bundles holding one need a model; the rest never do', () => {
    for (const id of ['task-worker', 'smart-consultation', 'starter-pack', 'growth-pack']) {
      expect(serviceUnavailability(service(id), NO_MODEL)).toEqual({
        reason: 'text_generation_unavailable',
        missing: ['TEXTGEN_BASE_URL', 'TEXTGEN_MODEL'],
      });
      expect(serviceUnavailability(service(id), WITH_MODEL)).toBeNull();
    }
    for (const id of ['website-booking', 'automation-wf', 'clinic-pack']) {
      expect(serviceUnavailability(service(id), NO_MODEL)).toBeNull();
    }
  });

  test('discovery marks, not hides, what cannot be sold; by default everything can', () => {
    const filters = DiscoveryQuery.parse({ capability: 'consultation' });
    const marked = discoverServices(filters, undefined, NO_MODEL);
    expect(marked.map((m) => [m.service.id, m.unavailable?.reason ?? null])).toEqual([
      ['smart-consultation', 'text_generation_unavailable'],
      ['starter-pack', 'text_generation_unavailable'],
      ['growth-pack', 'text_generation_unavailable'],
    ]);
    expect(discoverServices(filters).every((m) => m.unavailable === null)).toBe(true);
  });
});

describe('procurement plans around what cannot be sold', () => {
  const consultation = { objective: 'business advice on market entry', inputs: { type: 'market_entry' } };

  test('only a model-written service fits: nothing is chosen, `unavailable` and `missing` say why', () => {
    const plan = planProcurement(ask({ ...consultation, deployment: NO_MODEL }));
    expect(plan.chosen).toBeNull();
    expect(plan.unavailable).toEqual([
      {
        service_id: 'smart-consultation',
        reason: 'text_generation_unavailable',
        missing: ['TEXTGEN_BASE_URL', 'TEXTGEN_MODEL'],
      },
    ]);
    expect(plan.missing).toEqual([
      'not sellable on this deployment: smart-consultation is written by a language model and none is configured (TEXTGEN_BASE_URL, TEXTGEN_MODEL unset)',
    ]);
    expect(plan.candidates.find((c) => c.service_id === 'smart-consultation')).toMatchObject({
      eligible: false,
      rejected_because: [expect.stringMatching(/^not sellable on this deployment/)],
    });
  });

  test('with a model (or no deployment given) the same ask chooses the consultation', () => {
    for (const deployment of [WITH_MODEL, undefined]) {
      const plan = planProcurement(ask({ ...consultation, ...(deployment ? { deployment } : {}) }));
      expect(plan.chosen?.service_id).toBe('smart-consultation');
      expect(plan.unavailable).toEqual([]);
    }
  });

  test('a sellable service that fits less is chosen over a better one that cannot be sold', () => {
    const plan = planProcurement(
      ask({ objective: 'booking website and business advice', budgetMicros: 200_000_000, deployment: NO_MODEL }),
    );
    expect(plan.chosen?.service_id).toBe('website-booking');
    expect(plan.unavailable.map((u) => u.service_id)).toEqual(['smart-consultation', 'starter-pack']);
    expect(plan.explanation.join('\n')).toMatch(/starter-pack covers more \(3\) but not sellable on this deployment/);
  });

  test('another step that leaves nothing is still reported as it was (budget), with nothing unavailable', () => {
    const plan = planProcurement(
      ask({ objective: 'growth automation', budgetMicros: 10_000_000, deployment: NO_MODEL }),
    );
    expect(plan.chosen).toBeNull();
    expect(plan.unavailable).toEqual([]);
    expect(plan.missing.join(' ')).toMatch(/^budget: /);
  });
});

describe('a procurement workflow failing on a coded refusal', () => {
  const failed = (cause: Error) =>
    new WorkflowFailedError(
      'Workflow execution failed',
      new ActivityFailure('activity failed', 'orderProcurement', '5', RetryState.NON_RETRYABLE_FAILURE, 'w', cause),
      RetryState.NON_RETRYABLE_FAILURE,
    );

  test('becomes the refusal’s 4xx problem with its details', () => {
    const p = procurementFailureProblem(
      failed(
        ApplicationFailure.create({
          message: 'task-worker is written by a language model',
          type: 'text_generation_unavailable',
          nonRetryable: true,
          details: [{ missing: ['TEXTGEN_MODEL'], needed_by: ['task-worker'] }],
        }),
      ),
    );
    expect(p).toBeInstanceOf(ProblemError);
    expect([p?.status, p?.code, p?.extra]).toEqual([
      422,
      'text_generation_unavailable',
      { missing: ['TEXTGEN_MODEL'], needed_by: ['task-worker'] },
    ]);
  });

  test('anything else stays what it was', () => {
    const retryable = ApplicationFailure.create({ message: 'x', type: 'insufficient_funds', nonRetryable: false });
    const unknownType = ApplicationFailure.create({ message: 'x', type: 'TypeError', nonRetryable: true });
    const serverSide = ApplicationFailure.create({ message: 'x', type: 'internal_error', nonRetryable: true });
    for (const cause of [retryable, unknownType, serverSide])
      expect(procurementFailureProblem(failed(cause))).toBe(undefined);
    expect(procurementFailureProblem(new Error('boom'))).toBe(undefined);
  });
});

describe('a failed x402 settlement as the buyer sees it', () => {
  const VIEM =
    'ContractFunctionExecutionError: The total cost (gas * gas fee + value) of executing this transaction exceeds the balance of the account.\n\nContract Call:\n  address: 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913\n  function: transferWithAuthorization(address from, ...)\n  sender: 0x70997970C51812dc3A010C7d01b50e0d17dc79C8\n\nVersion: viem@2.38.0';

  test('the reason is the code the facilitator gave, or unexpected_settle_error when it gave text', () => {
    expect(settlementReasonCode('invalid_exact_evm_insufficient_balance')).toBe(
      'invalid_exact_evm_insufficient_balance',
    );
    expect(settlementReasonCode(`invalid_exact_evm_transaction_failed: ${VIEM}`)).toBe(
      'invalid_exact_evm_transaction_failed',
    );
    expect(settlementReasonCode('settlement_pending')).toBe('settlement_pending');
    for (const text of ['Settlement failed', VIEM, '', undefined, null, 'execution reverted'])
      expect(settlementReasonCode(text)).toBe('unexpected_settle_error');
  });

  test('the detail is short and names the code; known codes read as a sentence', () => {
    expect(settlementFailureDetail('invalid_exact_evm_insufficient_balance', false)).toBe(
      "Settlement failed (invalid_exact_evm_insufficient_balance): the payer's token balance does not cover the price. Nothing was charged; sign a new authorization to pay again.",
    );
    expect(settlementFailureDetail('some_new_code', true)).toMatch(
      /^Settlement failed \(some_new_code\): the facilitator refused the settlement\. The attempt is recorded/,
    );
  });

  test('PAYMENT-RESPONSE of a failure keeps the protocol fields and drops the raw text', () => {
    const failure = {
      success: false as const,
      errorReason: `invalid_exact_evm_transaction_failed: ${VIEM}`,
      errorMessage: VIEM,
      payer: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      transaction: '',
      network: 'eip155:8453' as const,
    };
    expect(buyerFacingSettleResponse(failure)).toEqual({
      success: false,
      errorReason: 'invalid_exact_evm_transaction_failed',
      payer: failure.payer,
      transaction: '',
      network: 'eip155:8453',
    });
    const header = Buffer.from(encodePaymentResponse(failure), 'base64').toString('utf8');
    expect(header).not.toMatch(/viem|Contract Call|0x70997970/i);
    const ok = { success: true as const, transaction: '0xabc', network: 'eip155:8453' as const, payer: failure.payer };
    expect(buyerFacingSettleResponse(ok)).toBe(ok);
  });
});
