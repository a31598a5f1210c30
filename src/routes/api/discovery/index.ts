import { JsonMemo, sendCachedJson } from '../../../http/cachedJson';
import { serviceView } from '../../../domain/catalogue';
import { discoverServices, parseDiscoveryQuery, serviceUnavailability } from '../../../domain/discovery';
import { negotiateCapabilities } from '../../../domain/negotiation';
import { badRequest } from '../../../errors';
import { missingTextgenSettings } from '../../../textgen';
import type { AppDeps } from '../../context';
import { OperationRouter } from '../../operation';
import { discoveryOperations as ops } from './schema';

/** The discovery filters of a query. @throws ProblemError 400 `invalid_request` naming the parameter. */
function discoveryQuery(query: Record<string, string | string[] | undefined>) {
  const parsed = parseDiscoveryQuery(query);
  if (!parsed.ok) throw badRequest(`${parsed.param}: ${parsed.message}`, parsed.param);
  return parsed.filters;
}

/**
 * `GET /api/v1/discover` (seed §4: eight filters plus min_sla; semantics in src/domain/discovery.ts) and
 * `POST /api/v1/capabilities/negotiate` (seed §2.7; rules in src/domain/negotiation.ts). Both are pure reads of the
 * catalogue. Every service listed says whether this deployment can sell it (`available`, `unavailable_reason`: a
 * model-written service without TEXTGEN_* configured; issue 24 §5). Errors: 400 `invalid_request` naming the
 * parameter. Registered from the definitions in ./schema.ts; the router parses the query with parseDiscoveryQuery,
 * which also refuses a misspelt filter.
 */
export function discoveryRoutes(deps: AppDeps): OperationRouter {
  // Answers depend only on the validated filters (the configuration is fixed): serialized once per filter set.
  const memo = new JsonMemo(512);
  const deployment = { missingTextgen: missingTextgenSettings(deps.config) };
  const availability = (u: ReturnType<typeof serviceUnavailability>) => ({
    available: u === null,
    unavailable_reason: u?.reason ?? null,
  });
  return new OperationRouter(deps)
    .on(ops.discover, { parse: { query: discoveryQuery } }, (ctx, { query: filters }) => {
      ctx.set('Cache-Control', 'public, max-age=60');
      sendCachedJson(
        ctx,
        memo.get(JSON.stringify(filters), () => {
          const matches = discoverServices(filters, undefined, deployment);
          return {
            count: matches.length,
            available_count: matches.filter((m) => m.unavailable === null).length,
            filters,
            services: matches.map((m) => ({
              ...serviceView(m.service, deps.config.PUBLIC_BASE_URL),
              price: m.price,
              matched_because: m.matched_because,
              ...availability(m.unavailable),
            })),
          };
        }),
      );
    })
    .on(ops.negotiate, (ctx, input) => {
      const { required_capabilities } = input.body;
      let result;
      try {
        result = negotiateCapabilities(required_capabilities);
      } catch {
        throw badRequest(
          'required_capabilities: give at least one capability with letters or digits',
          'required_capabilities',
        );
      }
      ctx.body = {
        required_capabilities: result.required,
        matches: result.matches.map((m) => ({
          service_id: m.service.id,
          name: m.service.name,
          agent_price: m.service.agent_price,
          coverage: m.coverage,
          fully_covered: m.missing.length === 0,
          covered: m.covered,
          missing: m.missing,
          matched_tags: m.matched_tags,
          ...availability(serviceUnavailability(m.service, deployment)),
        })),
        excluded: result.excluded.map((e) => ({
          service_id: e.service.id,
          name: e.service.name,
          conflicts: e.conflicts,
          reason: e.reason,
        })),
        unmatched: result.unmatched,
      };
    });
}
