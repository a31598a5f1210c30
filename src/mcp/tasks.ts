/**
 * The MCP Tasks extension of revision 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663): orders as tasks
 * (issue 12 §2). A `tools/call` of `create_order` from a client that declared the extension creates the order and
 * answers a flat CreateTaskResult whose `taskId` is the order workflow's id, `order-<order_id>`; `tasks/get` reads
 * the order (GET /api/v1/orders/{order_id}, the Authorization header forwarded) and maps its status onto the task's;
 * `tasks/cancel` runs the order's `cancelOrder` Update (POST /api/v1/orders/{order_id}/cancel). Nothing is kept in the
 * process: the task is the order (MongoDB read model and workflow), so an agent can come back to it days later on any
 * instance. The conformance suite's task fixtures (tests only) keep their state in the `mcp_fixture_tasks` collection.
 *
 * Source: issue 12 §2; SEP-2663 (tasks extension), SEP-2322 (input requests), SEP-2575 (-32021).
 */
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { RequestContext, ToolResult } from './features';

/** The extension's identifier, under `capabilities.extensions`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** The task methods of the extension (tasks/result and tasks/list were removed: -32601). */
export const TASK_METHODS = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);
/** Prefix of an order task id: the order workflow id. */
const ORDER_TASK = 'order-';
const FIXTURE_TASK = 'fixture-';
/** Tools that create a task when the client declared the extension. */
export const ORDER_TASK_TOOLS = new Set(['create_order']);
/** How often an agent should poll an order task. */
const ORDER_POLL_MS = 5_000;

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A task as the wire shows it (DetailedTask on tasks/get). */
export interface TaskView {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  inputRequests?: Record<string, unknown>;
}

/** True when the request's client capabilities declare the tasks extension. */
export function tasksNegotiated(caps: Record<string, unknown> | undefined): boolean {
  const ext = caps?.extensions;
  return !!ext && typeof ext === 'object' && (ext as Record<string, unknown>)[TASKS_EXTENSION] !== undefined;
}

/** The -32021 error of a task surface used without the extension (SEP-2575 Missing Required Capabilities). */
export function missingTasksCapability(what: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.MissingRequiredClientCapability,
    `${what} needs the ${TASKS_EXTENSION} extension in the client capabilities`,
    {
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    },
  );
}

/** A CreateTaskResult: the task's fields flat at the top level, never result / error / inputRequests. */
export function createTaskResult(t: TaskView, meta?: Record<string, unknown>): Record<string, unknown> {
  return {
    resultType: 'task',
    taskId: t.taskId,
    status: t.status,
    ...(t.statusMessage ? { statusMessage: t.statusMessage } : {}),
    createdAt: t.createdAt,
    lastUpdatedAt: t.lastUpdatedAt,
    ttlMs: t.ttlMs,
    ...(t.pollIntervalMs ? { pollIntervalMs: t.pollIntervalMs } : {}),
    ...(meta ? { _meta: meta } : {}),
  };
}

const text = (t: string) => ({ type: 'text', text: t });
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

// ---------------------------------------------------------------------------------------------------------------
// Orders as tasks

/** Order statuses that are still running, and the terminal ones the order reports as a tool error. */
const ORDER_WORKING = new Set(['awaiting_payment', 'paid', 'fulfilling', 'in_engineering', 'sla_breached']);
const ORDER_UNSUCCESSFUL = new Set(['expired', 'failed', 'refunded']);

function orderTaskView(order: Record<string, unknown>): TaskView {
  const id = String(order.order_id ?? '');
  const status = String(order.status ?? '');
  const createdAt = String(order.created_at ?? new Date().toISOString());
  const lastUpdatedAt = String(order.updated_at ?? createdAt);
  const base = { taskId: `${ORDER_TASK}${id}`, createdAt, lastUpdatedAt, ttlMs: null };
  if (ORDER_WORKING.has(status)) {
    const next = status === 'awaiting_payment' ? ': pay it (confirm_payment, or payment_options in the order)' : '';
    return {
      ...base,
      status: 'working',
      statusMessage: `Order ${id} is ${status}${next}`,
      pollIntervalMs: ORDER_POLL_MS,
    };
  }
  if (status === 'cancelled') return { ...base, status: 'cancelled', statusMessage: `Order ${id} was cancelled` };
  const isError = ORDER_UNSUCCESSFUL.has(status);
  return {
    ...base,
    status: 'completed',
    statusMessage: `Order ${id} is ${status}`,
    result: { content: [text(JSON.stringify(order))], structuredContent: order, ...(isError ? { isError: true } : {}) },
  };
}

/** The order id of an order task id, or undefined. */
const orderIdOf = (taskId: string) =>
  taskId.startsWith(ORDER_TASK) && taskId.length > ORDER_TASK.length ? taskId.slice(ORDER_TASK.length) : undefined;

/** Reads the order behind a task; -32602 when there is none, the problem detail as the error otherwise. */
async function readOrder(
  ctx: Pick<RequestContext, 'dispatch'>,
  taskId: string,
  orderId: string,
): Promise<Record<string, unknown>> {
  const { status, body } = await ctx.dispatch({ method: 'GET', path: `/api/v1/orders/${encodeURIComponent(orderId)}` });
  if (status === 404) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task: ${taskId}`);
  if (status < 200 || status >= 300) {
    const p = obj(body);
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      `Cannot read order ${orderId}: ${String(p.title ?? `HTTP ${status}`)}${p.detail ? `: ${String(p.detail)}` : ''} (send the agent key or order secret as Authorization)`,
      p,
    );
  }
  return obj(body);
}

/**
 * `create_order` as a task: places the order (the same REST call as the plain tool) and answers a CreateTaskResult
 * for `order-<order_id>`, with the creation answer (order secret, payment options) in `_meta["agent-commerce/order"]`.
 * A refused order is the plain isError tool result (no task was created).
 */
export function createOrderTask(created: ToolResult): Record<string, unknown> {
  const order = created.structuredContent;
  if (created.isError || !order || typeof order.order_id !== 'string') return created;
  return createTaskResult(orderTaskView(order), { 'agent-commerce/order': order });
}

// ---------------------------------------------------------------------------------------------------------------
// The conformance suite's task fixtures (tests only)

interface FixtureTaskDoc {
  _id: string;
  tool: string;
  args: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  /** When the work is done (a running task is `working` until then). */
  ready_at: Date;
  cancelled: boolean;
  /** Input requests still unanswered, by key. */
  pending: Record<string, unknown>;
  answers: Record<string, unknown>;
  expires_at: Date;
}

const FIXTURE_TTL_MS = 3_600_000;
let indexed: Promise<unknown> | undefined;
function fixtureTasks(db: Db) {
  const c = db.collection<FixtureTaskDoc>('mcp_fixture_tasks');
  indexed ??= c.createIndex({ expires_at: 1 }, { expireAfterSeconds: 0 }).catch(() => undefined);
  return c;
}

const elicit = (message: string, properties: Record<string, unknown>, required: string[]) => ({
  method: 'elicitation/create',
  params: { mode: 'form', message, requestedSchema: { type: 'object', properties, required } },
});

/** The task-supporting fixture tools: `required` ones refuse a client without the extension (-32021). */
export const FIXTURE_TASK_TOOLS: Record<
  string,
  { taskSupport: 'optional' | 'required'; description: string; inputSchema: Record<string, unknown> }
> = {
  slow_compute: {
    taskSupport: 'optional',
    description: 'Sleeps `seconds` seconds, then returns a result (task-supporting)',
    inputSchema: { type: 'object', properties: { seconds: { type: 'number' }, label: { type: 'string' } } },
  },
  failing_job: {
    taskSupport: 'required',
    description: 'Returns a tool execution error after about a second (task required)',
    inputSchema: { type: 'object', properties: {} },
  },
  protocol_error_job: {
    taskSupport: 'optional',
    description: 'Fails with a protocol error (task-supporting)',
    inputSchema: { type: 'object', properties: {} },
  },
  confirm_delete: {
    taskSupport: 'optional',
    description: 'Asks to confirm deleting a file, then completes (task-supporting)',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } } },
  },
  multi_input: {
    taskSupport: 'optional',
    description: 'Asks two questions at once, then completes (task-supporting)',
    inputSchema: { type: 'object', properties: {} },
  },
  test_tool_with_task: {
    taskSupport: 'required',
    description: 'Asks for a name (InputRequiredResult), then runs as a task whose result greets it',
    inputSchema: { type: 'object', properties: {} },
  },
};

const seconds = (args: Record<string, unknown>) => Math.max(0, Math.min(600, Number(args.seconds ?? 0) || 0));

/** Runs a task-supporting fixture without a task (client without the extension, optional support only). */
export async function runFixtureSync(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (tool === 'slow_compute') {
    await new Promise((r) => setTimeout(r, seconds(args) * 1000));
    return { content: [text(`Computed ${String(args.label ?? 'result')} after ${seconds(args)}s`)] };
  }
  if (tool === 'protocol_error_job')
    throw new ProtocolError(ProtocolErrorCode.InternalError, 'protocol_error_job failed with a protocol error');
  throw missingTasksCapability(`Tool ${tool}`);
}

/**
 * Creates the task of a fixture tool (durably, before answering). `test_tool_with_task` first asks for `user_name`
 * with an InputRequiredResult (no task), and creates the task on the round that carries the answer.
 */
export async function createFixtureTask(
  db: Db,
  tool: string,
  args: Record<string, unknown>,
  ctx: RequestContext,
): Promise<Record<string, unknown>> {
  const now = new Date();
  let ready = now;
  let pending: Record<string, unknown> = {};
  const answers: Record<string, unknown> = {};
  switch (tool) {
    case 'slow_compute':
      ready = new Date(now.getTime() + seconds(args) * 1000);
      break;
    case 'failing_job':
    case 'protocol_error_job':
      ready = new Date(now.getTime() + 1000);
      break;
    case 'confirm_delete':
      pending = {
        confirm: elicit(`Delete ${String(args.filename ?? 'the file')}?`, { confirm: { type: 'boolean' } }, [
          'confirm',
        ]),
      };
      break;
    case 'multi_input':
      pending = {
        name: elicit('What is your name?', { name: { type: 'string' } }, ['name']),
        confirm: elicit('Proceed?', { confirm: { type: 'boolean' } }, ['confirm']),
      };
      break;
    case 'test_tool_with_task': {
      const answer = obj(obj(ctx.params.inputResponses).user_name);
      if (!Object.keys(answer).length)
        return {
          resultType: 'input_required',
          inputRequests: { user_name: elicit('What is your name?', { name: { type: 'string' } }, ['name']) },
        };
      answers.user_name = answer;
      break;
    }
  }
  const doc: FixtureTaskDoc = {
    _id: `${FIXTURE_TASK}${randomUUID()}`,
    tool,
    args,
    created_at: now,
    updated_at: now,
    ready_at: ready,
    cancelled: false,
    pending,
    answers,
    expires_at: new Date(now.getTime() + FIXTURE_TTL_MS),
  };
  await fixtureTasks(db).insertOne(doc);
  return createTaskResult(fixtureView(doc));
}

function fixtureView(d: FixtureTaskDoc, now = new Date()): TaskView {
  const base = {
    taskId: d._id,
    createdAt: d.created_at.toISOString(),
    lastUpdatedAt: d.updated_at.toISOString(),
    ttlMs: FIXTURE_TTL_MS,
    pollIntervalMs: 200,
  };
  if (d.cancelled) return { ...base, status: 'cancelled' };
  if (Object.keys(d.pending).length) return { ...base, status: 'input_required', inputRequests: d.pending };
  if (now < d.ready_at) return { ...base, status: 'working' };
  const done = { ...base, lastUpdatedAt: (d.ready_at > d.updated_at ? d.ready_at : d.updated_at).toISOString() };
  const answered = (key: string, field: string) => String(obj(obj(d.answers[key]).content)[field] ?? '');
  switch (d.tool) {
    case 'failing_job':
      return {
        ...done,
        status: 'completed',
        result: { content: [text('failing_job failed (a tool execution error)')], isError: true },
      };
    case 'protocol_error_job':
      return {
        ...done,
        status: 'failed',
        error: { code: ProtocolErrorCode.InternalError, message: 'protocol_error_job failed with a protocol error' },
      };
    case 'confirm_delete':
      return {
        ...done,
        status: 'completed',
        result: {
          content: [
            text(answered('confirm', 'confirm') === 'true' ? `Deleted ${String(d.args.filename)}` : 'Not deleted'),
          ],
        },
      };
    case 'multi_input':
      return {
        ...done,
        status: 'completed',
        result: { content: [text(`Got ${answered('name', 'name')}, confirm=${answered('confirm', 'confirm')}`)] },
      };
    case 'test_tool_with_task':
      return { ...done, status: 'completed', result: { content: [text(`Hello, ${answered('user_name', 'name')}!`)] } };
    default:
      return {
        ...done,
        status: 'completed',
        result: { content: [text(`Computed ${String(d.args.label ?? 'result')} after ${seconds(d.args)}s`)] },
      };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// tasks/get, tasks/update, tasks/cancel

const unknownTask = (taskId: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task: ${taskId}`);

async function loadFixture(db: Db | undefined, taskId: string): Promise<FixtureTaskDoc> {
  const doc = db && taskId.startsWith(FIXTURE_TASK) ? await fixtureTasks(db).findOne({ _id: taskId }) : null;
  if (!doc) throw unknownTask(taskId);
  return doc;
}

/** The DetailedTask of `tasks/get`. */
async function getTask(taskId: string, ctx: RequestContext, db: Db | undefined): Promise<TaskView> {
  const orderId = orderIdOf(taskId);
  if (orderId) return orderTaskView(await readOrder(ctx, taskId, orderId));
  return fixtureView(await loadFixture(db, taskId));
}

/**
 * Serves `tasks/get`, `tasks/update` and `tasks/cancel` (the caller checked the extension was declared).
 * @throws ProtocolError -32602 for a missing or unknown taskId
 */
export async function serveTaskMethod(
  method: string,
  ctx: RequestContext,
  db: Db | undefined,
): Promise<Record<string, unknown>> {
  const taskId = ctx.params.taskId;
  if (typeof taskId !== 'string' || !taskId)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'params.taskId must be a task id');
  if (method === 'tasks/get') return { ...(await getTask(taskId, ctx, db)) };
  if (method === 'tasks/update') {
    const responses = obj(ctx.params.inputResponses);
    const orderId = orderIdOf(taskId);
    if (orderId) {
      await readOrder(ctx, taskId, orderId); // an order task never asks for input: nothing to deliver
      return {};
    }
    const doc = await loadFixture(db, taskId);
    const answered = Object.keys(responses).filter((k) => k in doc.pending);
    if (answered.length && !doc.cancelled) {
      const set: Record<string, unknown> = { updated_at: new Date(), ready_at: new Date() };
      const unset: Record<string, ''> = {};
      for (const k of answered) {
        set[`answers.${k}`] = responses[k];
        unset[`pending.${k}`] = '';
      }
      await fixtureTasks(db!).updateOne({ _id: taskId }, { $set: set, $unset: unset });
    }
    return {};
  }
  // tasks/cancel: an empty ack; a terminal task is left as it is (idempotent).
  const orderId = orderIdOf(taskId);
  if (orderId) {
    const view = orderTaskView(await readOrder(ctx, taskId, orderId));
    if (view.status !== 'working' && view.status !== 'input_required') return {};
    const { status, body } = await ctx.dispatch({
      method: 'POST',
      path: `/api/v1/orders/${encodeURIComponent(orderId)}/cancel`,
      body: {},
    });
    if (status >= 300) {
      const p = obj(body);
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `Order ${orderId} cannot be cancelled: ${String(p.title ?? `HTTP ${status}`)}${p.detail ? `: ${String(p.detail)}` : ''}`,
        p,
      );
    }
    return {};
  }
  const doc = await loadFixture(db, taskId);
  const view = fixtureView(doc);
  if (view.status === 'working' || view.status === 'input_required') {
    await fixtureTasks(db!).updateOne({ _id: taskId }, { $set: { cancelled: true, updated_at: new Date() } });
  }
  return {};
}
