/**
 * Test fixture: a real webhook receiver (node:http on 127.0.0.1) that verifies every request with the
 * `standardwebhooks` package, as a partner's receiver would, and answers what the test tells it to.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request as received. `verified` is true when the signature checked out against one of the secrets. */
export interface ReceivedRequest {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  verified: boolean;
  /** Status the receiver answered. */
  answered: number;
  at: number;
}

/** What the receiver answers a request with: a status and optional headers. */
export type Responder = (req: ReceivedRequest, n: number) => { status: number; headers?: Record<string, string> };

/** A running receiver. `accepted` holds the verified requests answered 2xx, in arrival order. */
export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  accepted: ReceivedRequest[];
  /** Secrets a signature may match (set after registration; several during a rotation). */
  secrets: string[];
  respond: Responder;
  /** Payloads of accepted requests, parsed. */
  events(): {
    type: string;
    timestamp: string;
    data: { event_id: string; order_id: string; seq: number; status: string; order: Record<string, unknown> | null };
  }[];
  waitFor(predicate: (r: Receiver) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a receiver that answers 204 to verified requests and 401 to others (until `respond` is replaced). */
export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    requests: [],
    accepted: [],
    secrets: [],
    respond: (r) => ({ status: r.verified ? 204 : 401 }),
    events() {
      return receiver.accepted.map((r) => JSON.parse(r.body));
    },
    async waitFor(predicate, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(receiver)) {
        if (Date.now() > deadline)
          throw new Error(
            `receiver: condition not met; got ${receiver.requests.length} requests: ${JSON.stringify(receiver.requests.map((r) => [r.id, r.answered]))}`,
          );
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      };
      let verified = false;
      for (const secret of receiver.secrets) {
        try {
          new Webhook(secret).verify(body, headers);
          verified = true;
          break;
        } catch {
          // try the next secret
        }
      }
      const record: ReceivedRequest = {
        id: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        signature: headers['webhook-signature'],
        body,
        verified,
        answered: 0,
        at: Date.now(),
      };
      const answer = receiver.respond(record, receiver.requests.length + 1);
      record.answered = answer.status;
      receiver.requests.push(record);
      if (verified && answer.status >= 200 && answer.status < 300) receiver.accepted.push(record);
      res.writeHead(answer.status, answer.headers ?? {});
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}
