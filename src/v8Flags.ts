/**
 * V8 flags of the API process, set on import: import this module first (server.ts does). The worker does not load
 * it: its workflow caches keep objects alive on purpose, and no measurement there asked for it.
 *
 * `--no-allocation-site-pretenuring`: V8 allocates objects straight in the old generation at allocation sites whose
 * objects survived young-generation collections. A burst of requests waiting on I/O (a cold start under load, long
 * polls, database round trips) marks Koa's and Node's per-request sites that way, and from then on every request's
 * context lands in the old generation: measured on the API (issue 9 §3), a cached 402 cost 45–51 µs of CPU instead of
 * 27 µs, 4 MB were promoted on every scavenge, and the heap grew to 260 MB between full collections (RSS 315 MB
 * against 208 MB with the flag). A V8 heuristic working as designed, for a workload it does not fit; no upstream
 * report of it for Node servers was found. Set at run time rather than on the command line so that every way of
 * starting the process (`npm start`, `npm run api`, Docker, tests) gets it.
 */
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--no-allocation-site-pretenuring');
