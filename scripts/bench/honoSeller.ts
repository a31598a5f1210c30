/**
 * The reference seller of `npm run bench:x402`: the official `@x402/hono` middleware selling one micro item with the
 * same payment requirements (network, asset, amount, pay-to, facilitator) and the same goods as the API. Runs in its
 * own process like the API. Usage: `tsx scripts/bench/honoSeller.ts <config.json>`; prints its port once listening.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { paymentMiddleware, x402ResourceServer, type Network } from '@x402/hono';
import { Hono } from 'hono';
import { getMicroItem, microItemGoods } from '../../src/products/micro';

interface SellerConfig {
  facilitatorUrl: string;
  itemId: string;
  network: string;
  asset: string;
  payTo: string;
  amount: string;
  extra: Record<string, unknown>;
  maxTimeoutSeconds: number;
}

const cfg = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as SellerConfig;
const item = getMicroItem(cfg.itemId);
if (!item) throw new Error(`no micro item ${cfg.itemId}`);
const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: cfg.facilitatorUrl })).register(
  cfg.network as Network,
  new ExactEvmScheme(),
);
const path = `/x402/item/${item.id}`;
const app = new Hono();
app.use(
  paymentMiddleware(
    {
      [`GET ${path}`]: {
        accepts: {
          scheme: 'exact',
          network: cfg.network as Network,
          payTo: cfg.payTo,
          price: { amount: cfg.amount, asset: cfg.asset, extra: cfg.extra },
          maxTimeoutSeconds: cfg.maxTimeoutSeconds,
        },
        description: item.title,
        mimeType: 'application/json',
      },
    },
    server,
  ),
);
app.get(path, (c) => c.json(microItemGoods(item) as Record<string, unknown>));
const listener = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => {
  process.stdout.write(`${(listener.address() as AddressInfo).port}\n`);
});
