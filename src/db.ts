/**
 * The one module that owns MongoDB: the client, the typed collections and their indexes.
 *
 * Only single-document atomic operations are used (no multi-document transactions, no change streams): the code runs
 * on MongoDB 7+ (production) and on FerretDB v2 with DocumentDB (embedded default, ../shared/reference/embedded-database.md).
 */
import { MongoBulkWriteError, MongoClient, MongoServerError, type Collection, type Db } from 'mongodb';
import type {
  DeliverableRecord,
  EngineeringRecord,
  OrderInputs,
  OrderProgressEvent,
  OrderStatus,
  PaymentRail,
  PaymentRecord,
  RefundRecord,
  ReviewRecord,
} from './domain/order';
import type {
  BillingPeriod,
  SubscriptionCharge,
  SubscriptionState,
  SubscriptionStatus,
  TaskResult,
} from './domain/subscription';
import type { ReconciliationReport } from './domain/reconciliation';

/** A stored quote (issue 2 §3). Amounts in integer micro-units. */
export interface QuoteDoc {
  _id: string;
  service_id: string;
  is_agent: boolean;
  amount_micros: number;
  currency: string;
  billing: string;
  partner_id: string | null;
  commission_micros: number | null;
  terms_version: string;
  catalogue_version: string;
  created_at: Date;
  expires_at: Date;
}

/**
 * The signed delivery receipt of an order (issue 12 §3), written once by the API when the order is first read as
 * delivered, so every read shows the same JWS; replaced only after it expired.
 */
export interface ReceiptDoc {
  /** The order id. */
  _id: string;
  jws: string;
  kid: string;
  issued_at: Date;
  expires_at: Date;
}

/** Read model of an order, written by the order workflow's activities (the workflow is the source of truth). */
export interface OrderDoc {
  _id: string;
  workflow_id: string;
  service_id: string;
  quote_id: string | null;
  agent_id: string | null;
  email: string | null;
  webhook_url: string | null;
  partner_id: string | null;
  /** sha256 hex of the order secret (`os_...`) when the order has no `agent_id` (issue 10 §1); never shown. */
  buyer_secret_hash?: string | null;
  inputs: OrderInputs;
  amount_micros: number;
  currency: string;
  billing: string;
  is_agent: boolean;
  rails: PaymentRail[];
  status: OrderStatus;
  /** Number of transitions applied; makes each status write idempotent and ordered. */
  version: number;
  progress: { status: OrderStatus; at: string; event?: OrderProgressEvent }[];
  payment: PaymentRecord | null;
  deliverables: DeliverableRecord[];
  review: ReviewRecord | null;
  refund: RefundRecord | null;
  failure: string | null;
  /** Expert-delivery orders, from `in_engineering` on (issue 6 §1); absent otherwise. */
  engineering?: EngineeringRecord | null;
  payment_deadline: Date;
  created_at: Date;
  updated_at: Date;
}

/**
 * One wallet movement, stored as its own ledger document `<agent_id>#<tx_id>` (so a transaction id is one entry per
 * wallet), written after the wallet's atomic update (src/repos/wallets.ts). `amount_micros` is positive for both kinds.
 */
export interface WalletEntryDoc {
  _id: string;
  agent_id: string;
  seq: number;
  tx_id: string;
  type: 'credit' | 'debit';
  amount_micros: number;
  balance_after_micros: number;
  memo: string;
  /** What caused it, e.g. `order:<id>`, `refund:<id>`, `operator`. */
  source: string;
  at: Date;
}

/** A movement as the wallet document remembers it: the ledger entry's fields without its ids. Integer micro-units. */
export type WalletMovement = Omit<WalletEntryDoc, '_id' | 'agent_id'>;

/**
 * An agent wallet (seed §2.9): identity, key and balance. Every movement is one atomic conditional update of this
 * document (src/repos/wallets.ts), which also bumps `seq` and remembers the movement in `recent` (newest last, bounded).
 */
export interface WalletDoc {
  _id: string;
  currency: string;
  /** sha256 hex of the agent key; null until the agent first reads the wallet (a credit can create it earlier). */
  key_hash: string | null;
  /** Balance in integer micro-units; never negative. */
  balance_micros: number;
  /** Number of movements applied = `seq` of the newest ledger entry. */
  seq: number;
  /** The newest movements, so a retried one is recognised and its ledger entry can be (re)written. */
  recent: WalletMovement[];
  created_at: Date;
}

/** A transaction of the local hosted payment-link provider. */
export interface LinkpayTransactionDoc {
  /** `lp_…` (local provider) or the Stripe PaymentIntent id `pi_…`. */
  _id: string;
  order_id: string;
  amount_micros: number;
  currency: string;
  status: 'succeeded' | 'refunded';
  payer_email: string | null;
  created_at: Date;
  refunded_at: Date | null;
  /**
   * Who holds the money (issue 37 §3): absent or `local` for the local provider's records; `stripe` for the mirror of
   * a Stripe payment (written from a verified webhook event or the adapter's own PaymentIntent), refunded only there.
   */
  provider?: 'local' | 'stripe';
  /** Stripe: the Checkout Session (`cs_…`) that took it, or `delegated` for an ACP shared-payment-token charge. */
  stripe_source?: string;
}

/**
 * A Stripe object this service created (issue 37 §3): a Checkout Session of the hosted link (`cs_…`) or a delegated
 * card PaymentIntent (`pi_…`), recorded when Stripe answers its creation. Stripe's webhook events act only on objects
 * recorded here, bound to the same order (a shared Stripe account carries other merchants' sessions and intents).
 */
export interface StripeObjectDoc {
  /** The Stripe id: `cs_…` or `pi_…`. */
  _id: string;
  kind: 'checkout_session' | 'payment_intent';
  order_id: string;
  /** The ACP checkout session a delegated PaymentIntent pays. */
  checkout_session_id: string | null;
  /** Integer cents, USD. */
  amount_cents: number;
  /** A PaymentIntent's last known state (`created` for a Checkout Session). */
  status: 'created' | 'processing' | 'succeeded' | 'failed';
  created_at: Date;
  updated_at: Date;
}

/** A stored response for an `Idempotency-Key` (../shared/reference/api-conventions.md). */
export interface IdempotencyDoc {
  _id: string;
  request_hash: string;
  state: 'in_flight' | 'done';
  response: { status: number; body: unknown; headers: Record<string, string> } | null;
  created_at: Date;
  /** While `in_flight`: the claim is taken over by a retry after this time; renewed while the request runs. */
  lease_until?: Date;
  /**
   * 32 random bytes (base64url) drawn by the first request and kept by every retry that takes the claim over: the
   * ids and secrets of what the request creates are derived from it (issue 36), so a retry after a crash or a 5xx
   * names the same resources. Absent on records written before.
   */
  seed?: string;
}

/** An order event as emitted by the workflow, numbered per order. */
export interface EventDoc {
  _id: string;
  order_id: string;
  seq: number;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

/**
 * A hosted booking page (issue 38 §2): one per order holding website-booking (alone or in a bundle). `_id` is the
 * page id in its URL (`bp_` + 128 random bits: the order id cannot be read from it, nor it from the order id).
 * `config` is the `website-booking-config.json` delivered (the same JSON), `html` the delivered page (the same bytes);
 * both null until the delivery wrote them. The owner key (`bpk_...`) is kept as its sha256 only.
 */
export interface BookingPageDoc {
  _id: string;
  order_id: string;
  /** The order's service: website-booking, or the bundle holding it. */
  service_id: string;
  config: Record<string, unknown> | null;
  html: string | null;
  owner_key_hash: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A customer's contact details as the booking form sent them. */
export interface BookingCustomer {
  name: string;
  email: string;
  phone: string | null;
  notes: string | null;
}

/**
 * One booking of a hosted page. `start`/`end` are the appointment, `held_until` its end plus the service's buffer;
 * `date`/`time` the wall-clock start in `timezone` as the customer chose it.
 */
export interface BookingDoc {
  _id: string;
  page_id: string;
  order_id: string;
  service_id: string;
  service_name: string;
  start: Date;
  end: Date;
  held_until: Date;
  date: string;
  time: string;
  timezone: string;
  customer: BookingCustomer;
  /** `void`: never a booking; written under a dead claim's id so its claimer cannot write it late (repos/bookings.ts). */
  status: 'confirmed' | 'cancelled' | 'void';
  created_at: Date;
  cancelled_at: Date | null;
}

/**
 * One cell of time a booking holds (`<page_id>|<cell start ISO>`): the unique `_id` is what makes a booking atomic,
 * two bookings cannot hold the same cell of the same page (src/domain/booking.ts `cellsOf`).
 */
export interface BookingCellDoc {
  _id: string;
  page_id: string;
  booking_id: string;
  start: Date;
  /**
   * When the claim was made (absent on cells claimed before 2026-12-02). A cell whose booking was never written
   * (its process died in between) is given back once it is older than the claim's grace (src/repos/bookings.ts).
   */
  claimed_at?: Date;
}

/** Where a hosted receptionist stands (issue 38 §1): it follows its subscription (decision 0041). */
export type ReceptionistStatus = 'active' | 'suspended' | 'ended';

/**
 * A hosted receptionist (issue 38 §1): one per ai-receptionist order. `_id` (`rc_` + 128 random bits) is in its
 * public chat URL; the order id cannot be read from it. `config` and `prompt` are the delivered
 * `ai-receptionist-config.json` and system prompt (the same JSON and text); `page_id` its own hosted booking page.
 * `status` is set by the subscription workflow's activity, each write carrying the subscription's record `version`
 * (`status_version`), so a retried or late write never undoes a newer one.
 */
export interface ReceptionistDoc {
  _id: string;
  order_id: string;
  page_id: string;
  config: Record<string, unknown> | null;
  prompt: string | null;
  status: ReceptionistStatus;
  status_reason: string | null;
  status_version: number;
  status_changed_at: Date;
  created_at: Date;
  updated_at: Date;
}

/** One line of a receptionist conversation. */
export interface ConversationMessage {
  role: 'visitor' | 'receptionist';
  text: string;
  at: Date;
}

/** A hand-over of a conversation to the business (issue 38 §1): e-mailed and sent as a signed webhook. */
export interface ConversationHandoff {
  at: Date;
  summary: string;
  contact: string | null;
  emailed_to: string | null;
}

/**
 * A conversation with a hosted receptionist (`cv_` + 128 random bits: whoever holds the id continues it). `dialogue`
 * is the deterministic dialogue's state (src/services/receptionist/dialogue.ts); `turn` counts the visitor's
 * messages and orders concurrent ones (a write applies only on the turn it read).
 */
export interface ConversationDoc {
  _id: string;
  receptionist_id: string;
  order_id: string;
  turn: number;
  dialogue: Record<string, unknown>;
  messages: ConversationMessage[];
  booking_ids: string[];
  handoffs: ConversationHandoff[];
  created_at: Date;
  updated_at: Date;
}

/**
 * A registered webhook endpoint (seed §2.6, §6.1; issue 5). Secrets are `whsec_<base64>` (Standard Webhooks),
 * stored in clear because the service must sign with them (the database is trusted; see docs/webhooks-and-mcp.md);
 * they are shown once. `events` empty means every event. `owner`: `agent` (managed with the agent's wallet key),
 * `token` (managed with `token_hash`'s token) or `order` (an order's own `webhook_url`, managed with its token).
 */
export interface WebhookEndpointDoc {
  _id: string;
  url: string;
  agent_id: string | null;
  /** Set on the implicit endpoint of an order's own `webhook_url`. */
  order_id: string | null;
  events: string[];
  /** Newest first; every secret whose `expires_at` is null or in the future signs (rotation overlap). */
  secrets: { secret: string; created_at: Date; expires_at: Date | null }[];
  owner: 'agent' | 'token' | 'order';
  /**
   * `acp`: an ACP platform's order-events receiver for one order (issue 37 §1): the body is ACP's WebhookEvent
   * (order_create / order_update with the Order) and the signature `Merchant-Signature` (src/webhooks/acp.ts).
   */
  format?: 'acp' | 'ucp';
  acp?: { checkout_session_id: string; platform_id: string };
  /** A UCP platform's order webhook (issue 37 §2): the session and the platform's profile. */
  ucp?: { checkout_session_id: string; profile_url: string };
  /** sha256 hex of the management token (owner `token` and `order`). */
  token_hash: string | null;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * One event bound for one endpoint (`<event_id>~<endpoint_id>`): the exact body sent on every attempt and the
 * delivery state. `run` counts manual retries (0 = the original delivery).
 */
export interface WebhookMessageDoc {
  _id: string;
  event_id: string;
  endpoint_id: string;
  order_id: string | null;
  seq: number;
  type: string;
  /** JSON body, fixed when the event is fanned out, so every attempt signs and sends the same bytes. */
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  run: number;
  attempts: number;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

/** One HTTP attempt to deliver a message (collection `webhook_deliveries`). Latency in milliseconds. */
export interface WebhookDeliveryDoc {
  _id: string;
  message_id: string;
  event_id: string;
  endpoint_id: string;
  type: string;
  run: number;
  attempt: number;
  url: string;
  status: 'delivered' | 'failed' | 'gone';
  response_code: number | null;
  latency_ms: number;
  error: string | null;
  /** When the next attempt is due; null when none follows. */
  next_retry_at: Date | null;
  at: Date;
}

/**
 * One goal-based procurement (issue 4 §3), written by the procurement workflow's activities; id `prc_...`, workflow
 * `procurement-<id>`. `plan` is the planner's output (src/domain/procurement.ts). Amounts in integer micro-units.
 */
export interface ProcurementDoc {
  _id: string;
  workflow_id: string;
  agent_id: string | null;
  objective: string | null;
  requirements: string[];
  budget_micros: number;
  currency: string;
  auto_purchase: boolean;
  /** running, then completed (bought), planned (auto_purchase false), no_match, needs_inputs or payment_failed. */
  status: 'running' | 'completed' | 'planned' | 'no_match' | 'needs_inputs' | 'payment_failed';
  plan: Record<string, unknown> | null;
  service_id: string | null;
  quote_id: string | null;
  order_id: string | null;
  failure: { code: string; message: string } | null;
  created_at: Date;
  completed_at: Date | null;
}

/**
 * A partner commission (seed §1: 20% of every payment received, per deal or per renewal), `_id`
 * `commission:<order_id>` or `commission:<order_id>:<period>`. The partner's wallet ledger holds the money; this is
 * the listing and its state (issue 10 §3): `pending` (order not final, nothing in the wallet) → `credited` on
 * acceptance, or `cancelled` on a refund; `not_eligible` never pays. A credited commission (orders paid before
 * issue 10) whose payment is refunded becomes `reversed`, or `reversal_owed` when the balance could not cover it all:
 * `owed_micros` is the rest, recorded in the partner's {@link CommissionDebtDoc}.
 */
export interface CommissionDoc {
  _id: string;
  partner_id: string;
  order_id: string;
  period: string | null;
  payment_micros: number;
  percent: number;
  commission_micros: number;
  status: 'pending' | 'credited' | 'cancelled' | 'reversed' | 'reversal_owed' | 'not_eligible';
  /** Why a commission was not credited (status not_eligible), e.g. the partner is the buyer. */
  reason: string | null;
  credit_tx_id: string | null;
  reversal_tx_id: string | null;
  owed_micros: number;
  created_at: Date;
  reversed_at: Date | null;
  /** When it was credited (absent: pending, never credited, or recorded before issue 10). */
  credited_at?: Date | null;
  /** Part of the commission that paid off what the partner owed instead of reaching its wallet (issue 10 §3). */
  debt_offset_micros?: number;
  /** What the reversal debited from the wallet (the rest is `owed_micros`). */
  reversal_debited_micros?: number;
  /** When a pending commission was cancelled (its payment refunded). */
  cancelled_at?: Date | null;
  /** Set while a release is paying it out (a retry finishes it). */
  releasing?: boolean;
}

/**
 * What a partner owes back from commission reversals its balance could not cover (issue 10 §3), `_id` the partner
 * id. Later commissions pay it off before any of them reaches the wallet. `moves` remembers the newest changes by
 * transaction id (a reversal adds, a commission credit subtracts), so a retried change applies once; `owed_micros`
 * changes only by compare-and-set on its previous value.
 */
export interface CommissionDebtDoc {
  _id: string;
  owed_micros: number;
  moves: { tx_id: string; delta_micros: number; at: Date }[];
  updated_at: Date;
}

/**
 * One minute in which an API process was up (trust telemetry, issue 4 §5): `_id` is the minute as
 * `YYYY-MM-DDTHH:MMZ`, so every process writing in that minute claims the same document.
 */
export interface UptimeSampleDoc {
  _id: string;
  minute: Date;
  created_at: Date;
}

/**
 * One x402 payment attempt that reached settlement (issue 3 §2, §7): the claim of an authorization, then its outcome.
 * Inserted with status `settling` BEFORE the facilitator is asked to settle: the unique `auth_key` index makes that
 * insert the atomic claim, so one signed authorization is settled by one request only. `tx_key` and
 * `order_key` are unique while set (partial indexes); null while there is no transaction / no order held.
 * Amounts in integer micro-units (= USDC atomic units).
 */
export interface X402PaymentDoc {
  _id: string;
  status: 'settling' | 'settled' | 'pending' | 'failed';
  /** Path of the paid resource, e.g. `/x402/item/recipe-...` or `/x402/orders/ord_...`. */
  resource: string;
  resource_kind: string;
  /** Item id, template sku or order id that was bought; null for resources without one. */
  resource_ref: string | null;
  order_id: string | null;
  amount_micros: number;
  asset: string;
  network: string;
  pay_to: string;
  /** Lowercase payer address (EIP-3009 `from`). */
  payer: string;
  /** `<network>|<payer>|<nonce>`: the authorization, unique across the ledger (the claim). */
  auth_key: string;
  /** Lowercase authorization nonce (bytes32 hex); for non-EIP-3009 payloads the sha256 of the signature. */
  nonce: string;
  /** Authorization `validBefore`, unix seconds: after it the authorization can never settle. */
  valid_before: number;
  transaction: string | null;
  /** Lowercase transaction hash once known; unique among entries that have one. */
  tx_key: string | null;
  /** `order:<order_id>` while this entry holds the order's payment (settling, pending or settled); null otherwise. */
  order_key: string | null;
  /** `payment-identifier` extension id sent with the payment, if any. */
  payment_id: string | null;
  error_reason: string | null;
  error_message: string | null;
  /**
   * While `settling`, or settled with `confirmation_due`: after this time without renewal the request holding the
   * entry counts as dead (its process was killed).
   */
  lease_until?: Date;
  /**
   * Set on a settled order payment until the order is confirmed (`confirmPayment`); an entry whose lease lapsed with
   * it set is handed to reconciliation, which confirms the order (issue 14).
   */
  confirmation_due?: true;
  /** Goods prepared for a settlement that came back pending; served at the delivery URL once settled. */
  delivery_token_hash: string | null;
  /**
   * The goods (a JSON document) sold by this payment, kept from the claim on: served at the delivery URL of a
   * settlement that came back pending, and to a resend of the same signed payment whose first request died.
   */
  delivery: unknown;
  created_at: Date;
  updated_at: Date;
  settled_at: Date | null;
  /**
   * Issue 36 §1: set on a settled payment that no order or item kept (another rail paid the order first, the order
   * ended unpaid, the goods were never delivered). `due` until the on-chain refund is seen (`sent`, its transaction);
   * stays `due` (held for an operator) where no refund key is configured.
   */
  refund?: {
    status: 'due' | 'sent';
    reason: string;
    transaction: string | null;
    requested_at: Date;
    sent_at: Date | null;
  };
}

/**
 * A `payment-identifier` (x402 extension) seen on a paid resource: `_id` = sha256 of resource path and id. The insert
 * of `in_flight` claims the id; `done` keeps the delivered response, so a retried purchase gets it again without a
 * second charge (issue 3 §2).
 */
export interface X402PaymentIdDoc {
  _id: string;
  payment_id: string;
  resource: string;
  state: 'in_flight' | 'pending' | 'done';
  /** sha256 of the exact PAYMENT-SIGNATURE payload first seen with the id. */
  payload_hash: string;
  /** Lowercase payer address of that payload. */
  payer: string;
  /** sha256 of scheme, network, asset, amount, payTo and resource: what a second payload with the id must match. */
  fingerprint: string;
  /** Ledger entry (`x402_payments._id`) of the payment. */
  payment_ref: string | null;
  /** The delivered response, body as the JSON document sent. */
  response: { status: number; headers: Record<string, string>; body: unknown } | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * A monthly subscription (issue 6 §2), `_id` = the order id; written by the subscription workflow's activities, one
 * ordered, idempotent write per `version`. `charges` is the append-only log of charge attempts (period 1 is the order
 * payment). Amounts in integer micro-units; ISO strings as the workflow reports them.
 */
export interface SubscriptionDoc {
  _id: string;
  order_id: string;
  workflow_id: string;
  service_id: string;
  agent_id: string | null;
  partner_id: string | null;
  rail: PaymentRail;
  amount_micros: number;
  currency: string;
  status: SubscriptionStatus;
  current_period: BillingPeriod;
  next_charge_at: string | null;
  cancel_at_period_end: boolean;
  cancel_reason: string | null;
  ended_at: string | null;
  dunning: SubscriptionState['dunning'];
  open_invoice: SubscriptionState['open_invoice'];
  charges: SubscriptionCharge[];
  version: number;
  created_at: Date;
  updated_at: Date;
}

/**
 * One further task of a per-task order (issue 6 §3), `_id` `<order_id>#<n>` (n from 2; task 1 is the order): the
 * insert of the id claims the number. Written by the API (running) and the task workflow (outcome).
 */
export interface TaskDoc {
  _id: string;
  order_id: string;
  number: number;
  workflow_id: string;
  status: 'running' | TaskResult['status'];
  inputs: OrderInputs;
  amount_micros: number;
  charge: TaskResult['charge'];
  deliverables: DeliverableRecord[];
  refund: RefundRecord | null;
  failure: TaskResult['failure'];
  requested_at: Date;
  completed_at: Date | null;
  /**
   * Set when the task was submitted with an `Idempotency-Key`: a name derived from the key's claim (issue 36), unique
   * per order, so a retry after a crash finds this task (and its number, hence its charge `task:<order_id>:<n>`).
   */
  idempotency_token?: string;
}

/** The last books reconciliation's report (issue 24 §3), `_id` `last`; replaced by every run. */
export interface ReconciliationReportDoc {
  _id: string;
  report: ReconciliationReport;
  stored_at: Date;
  /** `started_at` of the newest `full` run stored (ISO 8601). */
  last_full_started_at?: string;
}

/**
 * One Ed25519 key of the stored signing key set (issue 25 §2): a JWK (RFC 8037) whose private part is either `d` in
 * clear or `d_enc`, sealed with SIGNING_KEYS_ENCRYPTION_KEY (AES-256-GCM, `v1.<iv>.<ciphertext>.<tag>` in base64url,
 * the kid as additional data; src/signing/keyStore.ts); neither for a key that is only published. Times RFC 3339.
 */
export interface StoredSigningJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  d?: string;
  d_enc?: string;
  created_at?: string;
  not_before?: string;
  retire_after?: string;
}

/**
 * The API's signing key set (issue 25 §2), one document `_id` `signing` in `signing_keys`: the keys of quotes,
 * receipts and x402 offers for every API process on the database, unless SIGNING_KEYS is set. It holds private keys,
 * so the database is a secret store (unless SIGNING_KEYS_ENCRYPTION_KEY seals them). Created once by an upsert with
 * `$setOnInsert` (two APIs starting together converge on one set); every change is a compare-and-set on `version`.
 */
export interface SigningKeySetDoc {
  _id: string;
  /** In set order: the last key that may sign at a time signs (src/signing/keys.ts). */
  keys: StoredSigningJwk[];
  /** 1 at creation, +1 per change: what the API processes compare to notice a rotation. */
  version: number;
  /** kids read from DATA_DIR key files, so each file is imported once (even after its keys were retired). */
  imported_kids: string[];
  created_at: Date;
  updated_at: Date;
}

/**
 * An agent platform allowed to open ACP checkout sessions (issue 37 §1): issued by the operator, its API key stored
 * as a sha256 hex in `key_hash` (the key itself is shown once), `_id` `plat_…`.
 */
export interface AcpPlatformDoc {
  _id: string;
  name: string;
  key_hash: string;
  /** Its request-signing key (src/http/acpSignature.ts): with one, every request must be signed. */
  request_signing?: { alg: 'HS256'; secret: string } | { alg: 'EdDSA' | 'ES256'; jwk: Record<string, unknown> } | null;
  /** Its order-events receiver (openapi.agentic_checkout_webhook.yaml) and the HMAC secret of `Merchant-Signature`. */
  webhook?: { url: string; secret: string } | null;
  /** Its agent-hosted Feed API (decision 0039): base URL, credential, and the feed id once created there. */
  feed?: { url: string; api_key?: string | undefined; feed_id?: string | undefined } | null;
  created_at: Date;
}

/** A catalogue service in a checkout session: its id and the units asked for (only 1 can be bought). */
export interface CheckoutLineDoc {
  service_id: string;
  quantity: number;
}

/**
 * An ACP checkout session (issue 37 §1), `_id` `cs_…`: the platform's cart over one catalogue service, priced by a
 * binding quote; `order_id` is fixed at creation, so every complete (and every retry of one) makes that one order.
 * Written by the API only; the order's own state stays the order workflow's.
 */
export interface CheckoutSessionDoc {
  _id: string;
  platform_id: string;
  /** `expired`: closed by the session's timer (an open session past `expires_at` reads expired before that too). */
  status: 'open' | 'complete_in_progress' | 'awaiting_payment' | 'completed' | 'canceled' | 'expired';
  line: CheckoutLineDoc;
  /** The service's inputs collected so far (`metadata.inputs` of the requests). */
  inputs: Record<string, string | number | boolean | string[]>;
  buyer: Record<string, unknown> | null;
  metadata: Record<string, unknown>;
  quote_id: string;
  /** The quote's amount for one unit, integer micro-USD. */
  unit_amount_micros: number;
  currency: string;
  order_id: string;
  /** Seed of the order's secret and creation time on complete (base64url, 32 bytes): a retry derives the same. */
  seed: string;
  /** How complete paid: the handler, and the wallet for the agent wallet's. */
  payment: {
    handler_id: 'agent_wallet' | 'hosted_link' | 'x402' | 'card_tokenized';
    /** The delegated token (`vt_…`), or the PSP's shared payment token (`spt_…`) of a card. */
    token_id?: string;
    agent_id?: string;
  } | null;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
  expires_at: Date;
  version: number;
  /**
   * UCP sessions only (issue 37 §2; `platform_id` is then `ucp:<profile URL>`): the platform's profile, the order
   * webhook URL its `dev.ucp.shopping.order` capability declared, and whether AP2 mandates were negotiated.
   */
  ucp?: { profile_url: string; webhook_url: string | null; ap2: boolean };
}

/**
 * A delegated-payment token (`vt_…`) issued at `POST /agentic_commerce/delegate_payment` against an agent wallet: it
 * lets the checkout session `checkout_session_id` charge that wallet once, at most `max_amount` minor units, until
 * `expires_at`.
 */
export interface AcpPaymentTokenDoc {
  _id: string;
  agent_id: string;
  checkout_session_id: string;
  max_amount: number;
  currency: string;
  merchant_id: string;
  expires_at: Date;
  metadata: Record<string, string>;
  created_at: Date;
}

/** Handle on the database: the client and every typed collection. */
export interface Database {
  client: MongoClient;
  db: Db;
  quotes: Collection<QuoteDoc>;
  orders: Collection<OrderDoc>;
  receipts: Collection<ReceiptDoc>;
  wallets: Collection<WalletDoc>;
  walletEntries: Collection<WalletEntryDoc>;
  linkpayTransactions: Collection<LinkpayTransactionDoc>;
  stripeObjects: Collection<StripeObjectDoc>;
  idempotencyKeys: Collection<IdempotencyDoc>;
  events: Collection<EventDoc>;
  x402Payments: Collection<X402PaymentDoc>;
  x402PaymentIds: Collection<X402PaymentIdDoc>;
  procurements: Collection<ProcurementDoc>;
  commissions: Collection<CommissionDoc>;
  commissionDebts: Collection<CommissionDebtDoc>;
  uptimeSamples: Collection<UptimeSampleDoc>;
  webhookEndpoints: Collection<WebhookEndpointDoc>;
  webhookMessages: Collection<WebhookMessageDoc>;
  webhookDeliveries: Collection<WebhookDeliveryDoc>;
  subscriptions: Collection<SubscriptionDoc>;
  tasks: Collection<TaskDoc>;
  reconciliationReports: Collection<ReconciliationReportDoc>;
  signingKeys: Collection<SigningKeySetDoc>;
  acpPlatforms: Collection<AcpPlatformDoc>;
  checkoutSessions: Collection<CheckoutSessionDoc>;
  acpPaymentTokens: Collection<AcpPaymentTokenDoc>;
  bookingPages: Collection<BookingPageDoc>;
  bookings: Collection<BookingDoc>;
  bookingCells: Collection<BookingCellDoc>;
  receptionists: Collection<ReceptionistDoc>;
  conversations: Collection<ConversationDoc>;
  close(): Promise<void>;
}

/**
 * How long an operation waits for a reachable server (issue 14): while the database is down, requests fail within
 * a second (the API answers 503 `dependency_unavailable`, activities retry) instead of hanging for the driver's 30 s.
 * 500 ms leaves room under a loaded event loop (with 700 ms a probe took 1,055 ms in the server-kill drill).
 */
export const SERVER_SELECTION_TIMEOUT_MS = 500;
/** How long {@link connectDatabase} keeps trying at start, so a process may start before its database. */
const CONNECT_AT_START_MS = 30_000;

/**
 * Connects (retrying for up to 30 s), returns typed collections and awaits index creation.
 * @throws MongoServerSelectionError / MongoNetworkError when the server cannot be reached in that time.
 */
export async function connectDatabase(uri: string, dbName: string): Promise<Database> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS, maxPoolSize: 50 });
  const deadline = Date.now() + CONNECT_AT_START_MS;
  for (;;) {
    try {
      await client.connect();
      break;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  const db = client.db(dbName);
  const database: Database = {
    client,
    db,
    quotes: db.collection<QuoteDoc>('quotes'),
    orders: db.collection<OrderDoc>('orders'),
    receipts: db.collection<ReceiptDoc>('order_receipts'),
    wallets: db.collection<WalletDoc>('wallets'),
    walletEntries: db.collection<WalletEntryDoc>('wallet_entries'),
    linkpayTransactions: db.collection<LinkpayTransactionDoc>('linkpay_transactions'),
    stripeObjects: db.collection<StripeObjectDoc>('stripe_objects'),
    idempotencyKeys: db.collection<IdempotencyDoc>('idempotency_keys'),
    events: db.collection<EventDoc>('events'),
    x402Payments: db.collection<X402PaymentDoc>('x402_payments'),
    x402PaymentIds: db.collection<X402PaymentIdDoc>('x402_payment_ids'),
    procurements: db.collection<ProcurementDoc>('procurements'),
    commissions: db.collection<CommissionDoc>('commissions'),
    commissionDebts: db.collection<CommissionDebtDoc>('commission_debts'),
    uptimeSamples: db.collection<UptimeSampleDoc>('uptime_samples'),
    webhookEndpoints: db.collection<WebhookEndpointDoc>('webhook_endpoints'),
    webhookMessages: db.collection<WebhookMessageDoc>('webhook_messages'),
    webhookDeliveries: db.collection<WebhookDeliveryDoc>('webhook_deliveries'),
    subscriptions: db.collection<SubscriptionDoc>('subscriptions'),
    tasks: db.collection<TaskDoc>('order_tasks'),
    reconciliationReports: db.collection<ReconciliationReportDoc>('reconciliation_reports'),
    signingKeys: db.collection<SigningKeySetDoc>('signing_keys'),
    acpPlatforms: db.collection<AcpPlatformDoc>('acp_platforms'),
    checkoutSessions: db.collection<CheckoutSessionDoc>('checkout_sessions'),
    acpPaymentTokens: db.collection<AcpPaymentTokenDoc>('acp_payment_tokens'),
    bookingPages: db.collection<BookingPageDoc>('booking_pages'),
    bookings: db.collection<BookingDoc>('bookings'),
    bookingCells: db.collection<BookingCellDoc>('booking_cells'),
    receptionists: db.collection<ReceptionistDoc>('receptionists'),
    conversations: db.collection<ConversationDoc>('receptionist_conversations'),
    close: () => client.close(),
  };
  await ensureIndexes(database);
  return database;
}

/** One index of a collection, with why it exists. */
interface IndexSpec {
  key: Record<string, 1 | -1>;
  /** Explicit name, for indexes whose default name an older, different index had. */
  name?: string;
  unique?: boolean;
  /** Only documents matching this filter are indexed (and, with `unique`, held unique). */
  partialFilterExpression?: Record<string, unknown>;
  why: string;
}

/**
 * Every index, by collection. Each serves a query on a request or workflow path; test/integration/indexes.test.ts
 * runs `explain` on the hot ones and fails on a full collection scan.
 */
/*
 * Two DocumentDB 0.106 traits shape these (both measured here; no upstream issue found):
 * - a partial index filtered with `$type: 'string'` is not chosen for an equality query on the field, one filtered
 *   with `$gt: ''` is (and keeps nulls out just the same), so partial unique keys use `$gt: ''`;
 * - a unique index over several fields is checked through each field's posting list, so inserts slow down as the
 *   collection grows (2,900 → 600 inserts/s over 60,000 events); uniqueness is carried by single keys instead.
 */
export const INDEXES: Partial<Record<keyof Omit<Database, 'client' | 'db' | 'close'>, IndexSpec[]>> = {
  // One entry per (wallet, transaction id) is the `_id` itself (`<agent_id>#<tx_id>`): DocumentDB checks a unique
  // index over several fields by scanning each field's posting list, which grows with the collection.
  walletEntries: [{ key: { agent_id: 1, seq: 1 }, why: "a wallet's ledger in order" }],
  wallets: [
    {
      key: { key_hash: 1 },
      partialFilterExpression: { key_hash: { $type: 'string' } },
      why: "the wallet an agent key opens (webhook endpoints listed by their owner's key); keyless wallets are not indexed",
    },
  ],
  orders: [
    {
      key: { agent_id: 1, created_at: -1 },
      why: 'orders of one agent, newest first (wallet views, procurement history)',
    },
    {
      key: { status: 1, updated_at: -1 },
      name: 'engineering_queue',
      partialFilterExpression: { engineering: { $type: 'object' } },
      why: 'the engineer queue: expert orders by status (partial: a status index over every order grows one posting list per status, which DocumentDB extends on every transition)',
    },
  ],
  // A retried emit cannot duplicate a number: the `_id` is `msg_<order_id>_<seq>`.
  events: [{ key: { order_id: 1, seq: 1 }, why: 'events of one order in sequence' }],
  linkpayTransactions: [
    { key: { order_id: 1 }, why: 'the checkout page shows an existing payment of the order' },
    {
      key: { order_id: 1, status: 1 },
      name: 'one_succeeded_per_order',
      unique: true,
      partialFilterExpression: { status: 'succeeded' },
      why: 'one succeeded payment per order: two Pay presses at the same instant charged the buyer twice (issue 24 chaos drill)',
    },
  ],
  idempotencyKeys: [{ key: { created_at: 1 }, why: 'expired idempotency records are swept by age' }],
  acpPlatforms: [{ key: { key_hash: 1 }, unique: true, why: 'the platform an ACP API key names (every ACP request)' }],
  checkoutSessions: [
    { key: { order_id: 1 }, why: 'UCP Get Order: the session, and so the platform, an order came from' },
  ],
  x402Payments: [
    {
      key: { auth_key: 1 },
      unique: true,
      partialFilterExpression: { auth_key: { $gt: '' } },
      why: 'one settlement per signed authorization (network, payer, nonce in one key): the insert of the claim is the atomic step',
    },
    {
      key: { tx_key: 1 },
      unique: true,
      partialFilterExpression: { tx_key: { $gt: '' } },
      why: 'a transaction hash pays one ledger entry (and so one order) only',
    },
    {
      key: { order_key: 1 },
      unique: true,
      partialFilterExpression: { order_key: { $gt: '' } },
      why: 'one payment in flight or settled per order',
    },
    { key: { created_at: -1, _id: -1 }, why: 'the ledger, newest first (also by status, filtered on the way)' },
    {
      key: { status: 1, created_at: 1 },
      name: 'settling_claims',
      partialFilterExpression: { status: 'settling' },
      why: 'claims still settling, oldest first (orphans of dead requests); partial, so settled entries cost nothing',
    },
    {
      key: { lease_until: 1 },
      name: 'confirmations_due',
      partialFilterExpression: { confirmation_due: true },
      why: 'settled order payments whose order is not confirmed yet (orphans of dead requests); partial, so it stays tiny',
    },
    {
      key: { delivery_token_hash: 1 },
      why: 'goods of a settlement that came back pending, fetched by their delivery token',
    },
  ],
  commissions: [{ key: { partner_id: 1, created_at: -1 }, why: 'a partner lists its commissions, newest first' }],
  procurements: [{ key: { agent_id: 1, created_at: -1 }, why: 'procurements of one agent, newest first' }],
  uptimeSamples: [{ key: { minute: 1 }, why: 'uptime windows read the minutes since a time' }],
  webhookEndpoints: [
    { key: { agent_id: 1 }, why: 'fan-out: the endpoints of an agent' },
    { key: { order_id: 1 }, why: "fan-out: the endpoint of an order's own webhook_url" },
    { key: { token_hash: 1 }, why: 'endpoints managed by a management token' },
  ],
  webhookMessages: [
    {
      key: { order_id: 1, seq: 1 },
      why: 'per-endpoint ordering: earlier pending messages of the same order (few per order; an endpoint-first index would grow one posting list per endpoint)',
    },
  ],
  webhookDeliveries: [{ key: { endpoint_id: 1, at: -1 }, why: 'delivery log of an endpoint, newest first' }],
  subscriptions: [{ key: { status: 1, next_charge_at: 1 }, why: 'operators: what renews when' }],
  bookingPages: [
    {
      key: { order_id: 1 },
      unique: true,
      why: 'one booking page per order: a retried delivery finds the page it made',
    },
    { key: { owner_key_hash: 1 }, why: "the page an owner key opens (the owner's booking list)" },
  ],
  bookings: [{ key: { page_id: 1, start: 1 }, why: "a page's bookings in time order (the owner's list)" }],
  // One booking per cell of a page is the `_id` itself (`<page_id>|<cell start>`): the insert is the atomic claim.
  bookingCells: [
    { key: { page_id: 1, start: 1 }, why: "the cells a page's bookings hold on a day (availability)" },
    { key: { booking_id: 1 }, why: 'the cells of one booking (a cancel, or a refused claim, gives them back)' },
  ],
  receptionists: [
    { key: { order_id: 1 }, unique: true, why: 'one receptionist per order: a retried delivery finds the one it made' },
  ],
  conversations: [
    {
      key: { receptionist_id: 1, updated_at: -1 },
      why: "the owner reads a receptionist's conversations, latest first",
    },
  ],
  tasks: [
    { key: { order_id: 1, number: 1 }, why: 'tasks of one order in number order' },
    {
      key: { order_id: 1, idempotency_token: 1 },
      name: 'one_task_per_idempotency_key',
      unique: true,
      partialFilterExpression: { idempotency_token: { $gt: '' } },
      why: 'one task per Idempotency-Key: a retry after a crash found no task and charged a second one (issue 36)',
    },
  ],
};

/** Indexes earlier versions created that no query needs any more and every write paid for; dropped at start. */
const OBSOLETE_INDEXES: Partial<Record<keyof typeof INDEXES, string[]>> = {
  orders: ['status_1_updated_at_-1'],
  walletEntries: ['agent_id_1_tx_id_1'],
  events: ['order_id_1_seq_1'],
  x402Payments: ['status_1_created_at_-1', 'network_1_payer_1_nonce_1'],
  webhookMessages: ['endpoint_id_1_order_id_1_seq_1'],
};

/**
 * Concurrent index DDL of two processes: FerretDB v2 reports a PostgreSQL deadlock (FerretDB/FerretDB#5167, open);
 * MongoDB may answer 'in progress'.
 */
const TRANSIENT_DDL = /deadlock detected|could not serialize|concurrent|in progress|already exists with a different/i;

/**
 * Creates every index of {@link INDEXES}: one `createIndexes` command per collection, collections one after another
 * (the API and the worker run this at the same start; parallel DDL on one catalogue deadlocks), retried briefly.
 */
async function ensureIndexes(d: Database): Promise<void> {
  for (const [name, specs] of Object.entries(INDEXES) as [keyof typeof INDEXES, IndexSpec[]][]) {
    const collection = d.db.collection(d[name].collectionName);
    for (const obsolete of OBSOLETE_INDEXES[name] ?? []) {
      await collection.dropIndex(obsolete).catch(() => undefined); // absent: nothing to drop
    }
    const indexes = specs.map(({ key, name: indexName, unique, partialFilterExpression }) => ({
      key,
      ...(indexName ? { name: indexName } : {}),
      ...(unique ? { unique } : {}),
      ...(partialFilterExpression ? { partialFilterExpression } : {}),
    }));
    for (let attempt = 1; ; attempt++) {
      try {
        await collection.createIndexes(indexes);
        break;
      } catch (err) {
        if (attempt >= 8 || !(err instanceof MongoServerError) || !TRANSIENT_DDL.test(err.message)) throw err;
        await new Promise((r) => setTimeout(r, 50 * attempt + Math.random() * 100));
      }
    }
  }
}

/** True for MongoDB's duplicate-key error (11000): a unique-index claim that someone else already holds. */
export const isDuplicateKey = (err: unknown): err is MongoServerError =>
  err instanceof MongoServerError && err.code === 11000;

/** True when an `insertMany` failed only because some of its documents already existed (every write error 11000). */
export function onlyDuplicateKeys(err: unknown): boolean {
  if (err instanceof MongoBulkWriteError) {
    const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
    // Without write errors (a server error the driver wrapped), its code tells.
    return errors.length > 0 ? errors.every((e) => e.code === 11000) : err.code === 11000;
  }
  return isDuplicateKey(err);
}

/**
 * A write that lost a race with a concurrent write and succeeds when simply sent again: the duplicate key of two
 * concurrent upserts of one document (11000: MongoDB's documented advice is to retry), WriteConflict (112), and the
 * same races as DocumentDB reports them, as InternalError (code 1) "conflicting key value violates exclusion
 * constraint" (its unique indexes are exclusion constraints) or PostgreSQL's "deadlock detected". No upstream issue
 * found for DocumentDB's code; seen by the thousand in the soak drill on the rate-limit counters.
 */
export const isWriteRace = (err: unknown): err is MongoServerError =>
  err instanceof MongoServerError &&
  (err.code === 11000 ||
    err.code === 112 ||
    (err.code === 1 && /exclusion constraint|deadlock detected/.test(err.message)));

/** Pings the server; used by `/health`. Resolves false instead of throwing. */
export async function pingDatabase(d: Database): Promise<boolean> {
  try {
    await d.db.command({ ping: 1 }, { timeoutMS: 800 }); // /health answers within a second (issue 14)
    return true;
  } catch {
    return false;
  }
}
