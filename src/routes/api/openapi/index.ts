import type { AppDeps } from '../../context';
import { openApiDocument } from '../../openapi';
import { OperationRouter } from '../../operation';
import { openApiOperations as ops } from './schema';

/** `GET /api/v1/openapi.json`: the document, built once per process. */
export function openApiRoutes(deps: AppDeps): OperationRouter {
  let cached: unknown;
  return new OperationRouter(deps).on(ops.document, (ctx) => {
    cached ??= openApiDocument(deps.config.PUBLIC_BASE_URL);
    ctx.body = cached;
  });
}
