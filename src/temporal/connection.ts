/**
 * The API's Temporal client connection (issue 14): while the Temporal server is down, a call fails within about half
 * a second (a few quick gRPC retries instead of the SDK's default ten with backoff up to 5 s), so the request answers
 * 503 `dependency_unavailable` instead of hanging; once the server is back, the channel reconnects within a second.
 */
import { Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';

/** gRPC attempts per call while the server is unavailable (delays 100 ms, 170 ms). */
export const TEMPORAL_CALL_ATTEMPTS = 3;

/**
 * Connects to `address` with bounded retries and a fast reconnect. Source: issue 14.
 * @throws when the server cannot be reached at start (after the SDK's connect timeout).
 */
export function connectTemporal(address: string): Promise<Connection> {
  return Connection.connect({
    address,
    interceptors: [
      makeGrpcRetryInterceptor(
        defaultGrpcRetryOptions({ maxAttempts: TEMPORAL_CALL_ATTEMPTS, initialIntervalMs: () => 100 }),
      ),
    ],
    // grpc-js backs off reconnects up to 120 s by default: a restarted server would stay unused that long.
    channelArgs: { 'grpc.initial_reconnect_backoff_ms': 200, 'grpc.max_reconnect_backoff_ms': 1_000 },
  });
}
