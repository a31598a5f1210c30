/**
 * Temporal's hello-world (samples-typescript `hello-world`): one workflow, one activity. `npm run bench` runs it on
 * its own task queue of the same server as the anchor the order path is measured against.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { createHelloActivities } from './helloActivities';

const { greet } = proxyActivities<ReturnType<typeof createHelloActivities>>({ startToCloseTimeout: '10 seconds' });

/** Returns `Hello, <name>!` from the activity. */
export async function helloWorkflow(name: string): Promise<string> {
  return greet(name);
}
