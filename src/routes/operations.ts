/**
 * Every operation defined once (src/routes/operation.ts), gathered for the OpenAPI document and the MCP tools.
 * Each resource's routes register the same definitions.
 */
import type { OperationDefinition } from './operation';
import { orderOperations } from './api/orders/schema';
import { quoteOperations } from './api/quotes/schema';
import { walletOperations } from './api/wallets/schema';

/** The definitions, resource by resource. */
export const API_OPERATIONS: readonly OperationDefinition[] = [orderOperations, quoteOperations, walletOperations].flatMap((ops) => Object.values(ops));
