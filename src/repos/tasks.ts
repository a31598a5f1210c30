import { isDuplicateKey, type Database, type TaskDoc } from '../db';
import type { OrderInputs } from '../domain/order';
import { taskWorkflowId } from '../../workflows/subscriptionShared';
import { type TaskResult } from '../domain/subscription';

/** Further tasks of per-task orders (issue 6 §3). Task 1 is the order itself; further tasks are numbered from 2. */
export class TaskRepository {
  constructor(private readonly d: Database) {}

  /**
   * Claims the next task number of an order by inserting `<order_id>#<n>` (a unique `_id` insert is the atomic
   * claim; a lost race moves on to the next number) and returns the new task.
   * With `idempotent` (a request's `Idempotency-Key`, issue 36): the task already created under its `token` is
   * returned instead (the unique index on it makes the claim atomic), and a new one is requested at `at`.
   */
  async create(
    orderId: string,
    inputs: OrderInputs,
    amountMicros: number,
    idempotent?: { token: string; at: Date },
  ): Promise<TaskDoc> {
    const ofToken = () =>
      idempotent ? this.d.tasks.findOne({ order_id: orderId, idempotency_token: idempotent.token }) : null;
    const earlier = await ofToken();
    if (earlier) return earlier;
    const newest = await this.d.tasks.findOne({ order_id: orderId }, { sort: { number: -1 } });
    for (let n = Math.max(2, (newest?.number ?? 1) + 1); n < 100_000; n++) {
      const doc: TaskDoc = {
        _id: `${orderId}#${n}`,
        order_id: orderId,
        number: n,
        workflow_id: taskWorkflowId(orderId, n),
        status: 'running',
        inputs,
        amount_micros: amountMicros,
        charge: null,
        deliverables: [],
        refund: null,
        failure: null,
        requested_at: idempotent?.at ?? new Date(),
        completed_at: null,
        ...(idempotent ? { idempotency_token: idempotent.token } : {}),
      };
      try {
        await this.d.tasks.insertOne(doc);
        return doc;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        // Either number n was taken, or a concurrent retry with the same key created the task.
        const raced = await ofToken();
        if (raced) return raced;
      }
    }
    throw new Error(`order ${orderId}: no task number left`);
  }

  /** Task `n` of an order, or null. */
  get(orderId: string, n: number): Promise<TaskDoc | null> {
    return this.d.tasks.findOne({ _id: `${orderId}#${n}` });
  }

  /** Tasks of an order in number order (at most `limit`). */
  list(orderId: string, limit = 500): Promise<TaskDoc[]> {
    return this.d.tasks.find({ order_id: orderId }).sort({ number: 1 }).limit(limit).toArray();
  }

  /** Records a task's outcome (idempotent: the same result written twice is the same document). */
  async complete(orderId: string, n: number, result: TaskResult, at: string): Promise<void> {
    await this.d.tasks.updateOne(
      { _id: `${orderId}#${n}` },
      {
        $set: {
          status: result.status,
          charge: result.charge,
          deliverables: result.deliverables,
          refund: result.refund,
          failure: result.failure,
          completed_at: new Date(at),
        },
      },
    );
  }
}
