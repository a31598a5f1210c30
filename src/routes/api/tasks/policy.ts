/**
 * Loading a per-task order's tasks and who may submit one (issue 6 §3; issue 27 §1): anyone holding the order id reads
 * its tasks; a further task is charged from the order's agent wallet, so only the buyer submits it, by that wallet's
 * agent key.
 */
import { z } from 'zod';
import type { OrderDoc, TaskDoc } from '../../../db';
import { getService } from '../../../domain/catalogue';
import { isPerTaskService } from '../../../domain/longRunning';
import type { ServiceDefinition } from '../../../domain/catalogue';
import { notFound, unprocessable } from '../../../errors';
import type { TaskRepository } from '../../../repos/tasks';
import type { AppDeps } from '../../context';
import type { Actor } from '../../gate';
import type { RawRequest } from '../../operation';
import { buyerOf, loadOrder } from '../orders/policy';

/** A task number in a path; anything else finds no task (404). */
const TaskNumber = z.coerce.number().int().min(1).max(1_000_000);

/** Loader of the task of the path (`{order_id}`, `{n}`). @throws ProblemError 404 `order_not_found` / `task_not_found`. */
export function taskOfPath(deps: Pick<AppDeps, 'services'>, tasks: TaskRepository) {
  return async (_input: unknown, raw: RawRequest): Promise<TaskDoc> => {
    const doc = await loadOrder(deps, raw.params.order_id);
    const num = TaskNumber.safeParse(raw.params.n);
    const t = num.success ? await tasks.get(doc._id, num.data) : null;
    if (!t) throw notFound('task_not_found', `Order ${doc._id} has no task ${raw.params.n}`);
    return t;
  };
}

/** An order that takes further tasks: its per-task service and the agent whose wallet pays them. */
export interface TaskableOrder {
  doc: OrderDoc;
  service: ServiceDefinition;
  agentId: string;
}

/**
 * The gate of submitting a further task (`auth: 'buyer'`): the order (404), a per-task service (422
 * `task_not_supported`) with an agent wallet to charge (422 `task_not_supported`), then the buyer: that wallet's agent
 * key (401 / 403).
 */
export function taskSubmitGate(deps: Pick<AppDeps, 'services'>) {
  return {
    async load(_input: unknown, raw: RawRequest): Promise<TaskableOrder> {
      const doc = await loadOrder(deps, raw.params.order_id);
      const service = getService(doc.service_id);
      if (!service || !isPerTaskService(service)) {
        throw unprocessable(
          'task_not_supported',
          `${doc.service_id} is billed ${doc.billing}; further tasks are for per_task services`,
        );
      }
      if (!doc.agent_id)
        throw unprocessable('task_not_supported', 'The order has no agent_id, so no wallet can pay its tasks');
      return { doc, service, agentId: doc.agent_id };
    },
    authorize: (actor: Actor, { doc }: TaskableOrder) => buyerOf(deps.services.wallets, actor, doc, 'pay a task of'),
  };
}
