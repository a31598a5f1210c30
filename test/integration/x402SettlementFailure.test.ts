/**
 * Issue 24 §5: a failed x402 settlement answers 402 with a stable reason code and a short detail, never the
 * facilitator's error text. The failure is real: the facilitator's account is emptied of ETH on the private anvil
 * chain, so its `transferWithAuthorization` cannot pay for gas and viem throws (its message names the facilitator's
 * sender address, the call's arguments and "Version: viem@…"). That text must reach the server log only.
 */
import { createTestClient, http, publicActions } from 'viem';
import { ANVIL_ADDRESSES } from '../../scripts/lib/chain';
import { MICRO_ITEMS } from '../../src/products/micro';
import { startStack, type Stack } from '../helpers/stack';
import {
  paymentRequiredOf,
  paymentResponseOf,
  signPayment,
  signatureHeader,
  startX402Chain,
  type X402Chain,
} from '../helpers/x402';

jest.setTimeout(120_000);

let chain: X402Chain;
let stack: Stack;
const item = [...MICRO_ITEMS].sort((a, b) => a.price_micros - b.price_micros)[0]!;

beforeAll(async () => {
  chain = await startX402Chain();
  stack = await startStack(chain.stackConfig);
});

afterAll(async () => {
  await stack?.stop();
  await chain?.stop();
});

it('answers 402 with the reason code and a short detail; the viem error goes to the log only', async () => {
  const path = `/x402/item/${item.id}`;
  const required = paymentRequiredOf(await fetch(stack.url + path));
  const headers = signatureHeader(await signPayment(required));
  const anvil = createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) }).extend(publicActions);
  const gas = await anvil.getBalance({ address: ANVIL_ADDRESSES.facilitator });
  const logged: string[] = [];
  const spy = jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    logged.push(args.map((a) => (a instanceof Error ? a.message : String(a))).join(' '));
  });
  let res;
  try {
    await anvil.setBalance({ address: ANVIL_ADDRESSES.facilitator, value: 0n });
    res = await stack.call('GET', path, undefined, headers);
  } finally {
    spy.mockRestore();
    await anvil.setBalance({ address: ANVIL_ADDRESSES.facilitator, value: gas });
  }

  expect(res.status).toBe(402);
  expect(res.headers.get('content-type')).toMatch(/problem\+json/);
  const reason = res.body.reason as string;
  expect(reason).toMatch(/^[a-z][a-z0-9_]+$/);
  expect(res.body).toMatchObject({ code: 'payment_required', type: expect.stringMatching(/payment_required$/) });
  expect(res.body.detail).toMatch(new RegExp(`^Settlement failed \\(${reason}\\): `));
  expect(res.body.detail).not.toMatch(/0x/i);
  expect(res.body.detail.length).toBeLessThan(200);
  // Nothing of the library's text anywhere in the answer: not in the body, not in the x402 headers.
  const facilitator = ANVIL_ADDRESSES.facilitator.toLowerCase().slice(2);
  const settle = paymentResponseOf(res);
  expect(settle).toMatchObject({ success: false, errorReason: reason });
  expect(settle).not.toHaveProperty('errorMessage');
  expect(paymentRequiredOf(res).error).toBe(reason);
  for (const text of [
    res.text,
    JSON.stringify(settle),
    JSON.stringify(paymentRequiredOf(res)),
    ...[...res.headers.values()],
  ]) {
    expect(text).not.toMatch(/viem|Version:|Request Arguments|Contract Call|transferWithAuthorization/i);
    expect(text.toLowerCase()).not.toContain(facilitator);
  }
  // The ledger's public view of a recorded attempt says no more.
  if (res.body.payment) {
    const entry = await stack.call('GET', `/api/v1/x402/payments/${res.body.payment.payment_id}`);
    expect(entry.body).toMatchObject({ status: 'failed', error_reason: reason });
    expect(entry.text).not.toMatch(/viem|Version:/i);
    expect(entry.text.toLowerCase()).not.toContain(facilitator);
  }
  // The server log has the facilitator's own words.
  expect(logged.some((line) => line.includes('x402 settlement of payment') && /viem/i.test(line))).toBe(true);
});
