/**
 * Every operation defined once (src/routes/operation.ts), gathered for the OpenAPI document and the MCP tools.
 * Each resource's routes register the same definitions.
 */
import type { OperationDefinition } from './operation';
import { orderOperations } from './api/orders/schema';
import { quoteOperations } from './api/quotes/schema';
import { walletOperations } from './api/wallets/schema';
import { engineeringOperations } from './api/engineering/schema';
import { subscriptionOperations } from './api/subscriptions/schema';
import { taskOperations } from './api/tasks/schema';
import { webhookOperations } from './api/webhooks/schema';
import { mcpOperations } from './api/mcp/schema';
import { discoveryOperations } from './api/discovery/schema';
import { procurementOperations } from './api/procurements/schema';
import { partnerOperations } from './api/partners/schema';
import { trustOperations } from './api/trust/schema';
import { x402Operations } from './api/x402/schema';
import { catalogueOperations } from './api/catalogue/schema';
import { openApiOperations } from './api/openapi/schema';
import { signingOperations } from './api/signing/schema';
import { payOperations } from './api/pay/schema';
import { reconciliationOperations } from './api/reconciliation/schema';
import { checkoutOperations } from './api/checkout/schema';
import { ucpOperations } from './api/ucp/schema';
import { bookingOperations } from './api/bookings/schema';
import { receptionistOperations } from './api/receptionists/schema';

/** The definitions, resource by resource. */
export const API_OPERATIONS: readonly OperationDefinition[] = [
  catalogueOperations,
  openApiOperations,
  orderOperations,
  quoteOperations,
  walletOperations,
  engineeringOperations,
  subscriptionOperations,
  taskOperations,
  webhookOperations,
  mcpOperations,
  discoveryOperations,
  procurementOperations,
  partnerOperations,
  trustOperations,
  x402Operations,
  signingOperations,
  payOperations,
  reconciliationOperations,
  checkoutOperations,
  ucpOperations,
  bookingOperations,
  receptionistOperations,
].flatMap((ops) => Object.values(ops));
