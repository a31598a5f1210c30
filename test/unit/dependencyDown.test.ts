/**
 * Which thrown errors mean "a dependency is down, retry" (503 with Retry-After) rather than a 500 (issue 14; issue 25
 * §3: what a Temporal cluster answers while one of its processes restarts).
 */
import { NamespaceNotFoundError } from '@temporalio/client';
import { dependencyDown, toProblem } from '../../src/http/errors';

/** A gRPC error as @grpc/grpc-js raises it (a `metadata` member and a numeric status code). */
const grpc = (code: number, details: string) => Object.assign(new Error(details), { code, details, metadata: {} });

test('UNAVAILABLE from the frontend, also wrapped as the cause of a ServiceError, is Temporal down', () => {
  const wrapped = Object.assign(new Error('Failed to start Workflow'), {
    name: 'ServiceError',
    cause: grpc(14, 'connection refused'),
  });
  expect(dependencyDown(grpc(14, 'x'))).toBe('temporal');
  expect(dependencyDown(wrapped)).toBe('temporal');
});

test("a frontend that does not know the deployment's namespace yet (just restarted) answers 503, not 500", () => {
  const err = new NamespaceNotFoundError('default');
  expect(dependencyDown(err)).toBe('temporal');
  const p = toProblem(err);
  expect(p.status).toBe(503);
  expect(p.headers['Retry-After']).toBeDefined();
});

test('a business error of Temporal (NOT_FOUND of a workflow, INVALID_ARGUMENT) is not a dependency down', () => {
  expect(dependencyDown(grpc(5, 'workflow not found'))).toBeNull();
  expect(dependencyDown(grpc(3, 'bad request'))).toBeNull();
  expect(toProblem(grpc(3, 'bad request')).status).toBe(500);
});
