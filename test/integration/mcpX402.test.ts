/**
 * A paid tool over MCP following x402's MCP transport (issue 5 §3): the official MCP client calls `buy_micro_item`,
 * gets the x402 PaymentRequired as an isError result, signs a payment with the unmodified x402 client packages and
 * retries with `_meta["x402/payment"]`; the item comes back with the settlement in `_meta["x402/payment-response"]`,
 * and the USDC moved on the local chain.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { PaymentRequired } from '@x402/core/types';
import { ANVIL_ADDRESSES } from '../../scripts/lib/chain';
import { MICRO_ITEMS } from '../../src/products/micro';
import { startStack, type Stack } from '../helpers/stack';
import { signPayment, startX402Chain, type X402Chain } from '../helpers/x402';

jest.setTimeout(120_000);

let chain: X402Chain;
let stack: Stack;
let client: Client;

beforeAll(async () => {
  chain = await startX402Chain();
  stack = await startStack(chain.stackConfig);
  client = new Client({ name: 'x402-mcp-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`)));
});

afterAll(async () => {
  await client?.close();
  await stack?.stop();
  await chain?.stop();
});

test('buy_micro_item: payment required as isError, paid through _meta, settled on chain', async () => {
  const item = MICRO_ITEMS[0]!;
  const unpaid = await client.callTool({ name: 'buy_micro_item', arguments: { item_id: item.id } });
  expect(unpaid.isError).toBe(true);
  const required = unpaid.structuredContent as unknown as PaymentRequired;
  expect(required.x402Version).toBe(2);
  expect(required.accepts[0]).toMatchObject({
    scheme: 'exact',
    network: 'eip155:8453',
    amount: String(item.price_micros),
  });

  const before = await chain.balance(ANVIL_ADDRESSES.payTo);
  const payload = await signPayment(required);
  const paid = await client.callTool({
    name: 'buy_micro_item',
    arguments: { item_id: item.id },
    _meta: { 'x402/payment': payload },
  });
  expect(paid.isError).toBeFalsy();
  expect(JSON.stringify(paid.structuredContent)).toContain(item.id);
  const settlement = paid._meta?.['x402/payment-response'] as {
    success: boolean;
    transaction: string;
    network: string;
  };
  expect(settlement).toMatchObject({ success: true, network: 'eip155:8453' });
  expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
  expect((await chain.balance(ANVIL_ADDRESSES.payTo)) - before).toBe(BigInt(item.price_micros));

  // A payload that is not an x402 PaymentPayload is refused by the resource like a bad PAYMENT-SIGNATURE header.
  const garbage = await client.callTool({
    name: 'buy_micro_item',
    arguments: { item_id: item.id },
    _meta: { 'x402/payment': 'nope' },
  });
  expect(garbage.isError).toBe(true);
  expect(garbage.structuredContent).toMatchObject({ status: 400, code: 'invalid_payment_header' });
});
