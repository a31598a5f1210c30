/**
 * Further tasks of per-task orders (issue 6 §3): one order buys one task; further tasks on a delivered or accepted
 * order are charged one by one from the order's agent wallet at its quoted price. Schemas and operation definitions
 * (src/routes/operation.ts).
 */
import { z } from 'zod';
import { defineOperation } from '../../operation';
import { DELIVERABLE_DOWNLOAD_RESPONSES, OrderPath } from '../fields';

/** Body of `POST /api/v1/orders/{order_id}/tasks` (task-worker inputs, seed §2.1). */
export const TaskBody = z.object({
  task_prompt: z.string().trim().min(1).max(20_000),
  format: z.enum(['json', 'markdown', 'text']).optional(),
});

/** One further task of a per-task order. */
export const TaskView = z
  .object({
    order_id: z.string(),
    task: z.number().int(),
    status: z.enum(['running', 'delivered', 'payment_failed', 'failed']),
    inputs: z.record(z.string(), z.unknown()),
    amount: z.number(),
    amount_micros: z.number().int(),
    charge: z.object({ transaction_id: z.string(), amount: z.number(), at: z.string() }).nullable(),
    deliverables: z.array(
      z.object({
        name: z.string(),
        url: z.string(),
        sha256: z.string(),
        size: z.number().int(),
        media_type: z.string(),
      }),
    ),
    refund: z.record(z.string(), z.unknown()).nullable(),
    failure: z.object({ code: z.string(), message: z.string() }).nullable(),
    requested_at: z.string(),
    completed_at: z.string().nullable(),
    links: z.object({ self: z.string() }),
  })
  .meta({ id: 'Task' });

const TaskPath = OrderPath.extend({ n: z.string().meta({ description: 'Task number, from 1' }) });

/** The task operations. */
export const taskOperations = {
  submit: defineOperation({
    id: 'submitTask',
    method: 'post',
    path: '/api/v1/orders/{order_id}/tasks',
    summary: 'Submit a further task to a per-task order, charged from the agent wallet at the quoted price',
    auth: 'buyer',
    request: { params: OrderPath, body: TaskBody },
    responses: {
      '201': { description: 'Charged and delivered', json: TaskView },
      '202': { description: 'Still running; poll Location', json: TaskView },
    },
    errors: {
      order_not_found: 'Unknown order',
      insufficient_funds: 'The wallet is short: the task is recorded as payment_failed',
      payment_failed: 'The task could not be charged',
      invalid_state_transition: 'The order is not delivered or accepted',
      task_not_supported: 'Not a per-task service, or no agent wallet pays it',
      missing_inputs: 'task_prompt missing',
      order_closed: "The task's workflow was terminated, failed, timed out or cancelled (workflow_status)",
    },
  }),
  list: defineOperation({
    id: 'listTasks',
    method: 'get',
    path: '/api/v1/orders/{order_id}/tasks',
    summary: 'Further tasks of the order',
    auth: 'none',
    request: { params: OrderPath },
    responses: { '200': { description: 'Tasks', json: z.object({ order_id: z.string(), tasks: z.array(TaskView) }) } },
    errors: { order_not_found: 'Unknown order' },
  }),
  get: defineOperation({
    id: 'getTask',
    method: 'get',
    path: '/api/v1/orders/{order_id}/tasks/{n}',
    summary: 'One task',
    auth: 'none',
    request: { params: TaskPath },
    responses: { '200': { description: 'Task', json: TaskView } },
    errors: { order_not_found: 'Unknown order', task_not_found: 'No such task' },
  }),
  deliverable: defineOperation({
    id: 'getTaskDeliverable',
    method: 'get',
    path: '/api/v1/orders/{order_id}/tasks/{n}/deliverables/{name}',
    summary: "Download a task's deliverable (ETag and Repr-Digest carry its sha256)",
    auth: 'none',
    request: { params: TaskPath.extend({ name: z.string().meta({ description: 'Deliverable name' }) }) },
    // The bytes in the deliverable's own media type, streamed (issue 25 §2).
    responses: DELIVERABLE_DOWNLOAD_RESPONSES,
    errors: {
      order_not_found: 'Unknown order',
      task_not_found: 'No such task',
      deliverable_not_found: 'The task has no deliverable of this name',
      range_not_satisfiable: 'The Range starts past the last byte',
    },
  }),
};
