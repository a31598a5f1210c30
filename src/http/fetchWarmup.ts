/**
 * Warms Node's `fetch` (its bundled undici) once, against a throwaway local server, before the API loads its modules.
 *
 * Why: the API's outbound HTTP goes through the global `fetch` (`@x402/core`'s `HTTPFacilitatorClient`, the MCP tools'
 * calls of the REST operations), which Node loads lazily (nodejs/node#52275). The first call compiles undici and its
 * llhttp WebAssembly parser: measured on a bare Node 20 process, RSS 41 → 61 MB for one local POST. In the API that
 * happened on the first x402 request (the facilitator's `/supported`), on top of a loaded heap: RSS 125 → 148 MB
 * within 30 ms, then back to 119 MB (sampled every 3 ms), which set the process's peak (issue 9 §3: API ≤ 150 MB RSS).
 * Done first, the same work lands on a 40 MB process. Never throws: a failure only means the first real call pays.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Makes one JSON POST through `fetch` to a local server on an ephemeral port, then closes it. Resolves, never rejects. */
export async function warmFetch(): Promise<void> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(2_000),
    });
    await res.text();
  } catch {
    // Nothing to do: the first facilitator call compiles what this would have.
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
