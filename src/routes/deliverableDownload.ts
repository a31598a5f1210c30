/**
 * Downloading stored deliverables (issue 2 §4; streaming and ranges: issue 25 §2), shared by the order and task
 * routes.
 */
import type { Context } from 'koa';
import { problem } from '../errors';
import { etagMatches } from '../http/cachedJson';
import { decideRange } from '../http/byteRange';
import type { StreamingDeliverableStore } from '../storage/deliverables';

/** A deliverable as the order (or task) records it: its name, address (sha256, size in bytes) and media type. */
export interface DeliverableRef {
  name: string;
  sha256: string;
  size: number;
  media_type: string;
}

/**
 * Answers a download of `d` with its bytes streamed from `store`, never read whole: `ETag` (the sha256, strong),
 * `Repr-Digest` (RFC 9530, sha-256 of the whole representation, so also on a 206), `Accept-Ranges: bytes`;
 * 304 for a matching `If-None-Match`, 206 with `Content-Range` for one satisfiable `Range` (honouring `If-Range`),
 * otherwise 200 with the whole blob.
 * @throws ProblemError 416 `range_not_satisfiable` (with `Content-Range: bytes *\/size`); 500 when the blob is missing.
 */
export async function sendDeliverable(
  ctx: Context,
  store: StreamingDeliverableStore,
  d: DeliverableRef,
  options: { attachment?: boolean } = {},
): Promise<void> {
  const etag = `"${d.sha256}"`;
  ctx.set('ETag', etag);
  ctx.set('Repr-Digest', `sha-256=:${Buffer.from(d.sha256, 'hex').toString('base64')}:`);
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('X-Content-Type-Options', 'nosniff');
  if (etagMatches(ctx.get('if-none-match'), etag)) {
    ctx.status = 304;
    return;
  }
  const decision = decideRange(ctx.get('range'), ctx.get('if-range'), d.size, etag);
  if (decision.kind === 'unsatisfiable')
    throw problem(
      'range_not_satisfiable',
      `The deliverable has ${d.size} bytes`,
      { size: d.size },
      { headers: { 'Content-Range': `bytes */${d.size}` } },
    );
  const range = decision.kind === 'partial' ? decision.range : undefined;
  const blob = await store.open(d.sha256, range);
  if (!blob) throw problem('internal_error', `blob ${d.sha256} missing`);
  ctx.type = d.media_type;
  if (options.attachment)
    ctx.set('Content-Disposition', `attachment; filename="${d.name.replace(/[^A-Za-z0-9._-]/g, '_')}"`);
  ctx.body = blob.stream;
  if (range) {
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${blob.size}`);
    ctx.length = range.end - range.start + 1;
  } else {
    ctx.length = blob.size;
  }
}
