/**
 * Capability negotiation behind `POST /api/v1/capabilities/negotiate`: which services cover which of the required
 * capabilities, best first. Pure functions, no I/O.
 *
 * Rules (decided here; the seed says only "matching services sorted by coverage"):
 * - Required capabilities are normalised ({@link normaliseTag}) and de-duplicated, keeping their order.
 * - A required capability is covered when it matches a service tag as in discovery (equal, or whole-word prefix).
 * - A service conflicts when a required capability equals one of its `constraints.does_not_support` entries
 *   (exact, after normalisation: negative constraints are precise names). Conflicting services are left out of the
 *   matches and listed under `excluded` with the conflicting capabilities, even when they cover others.
 * - Services covering none of the required capabilities are not matches; they are counted in `unmatched`.
 * - Order: coverage (covered / required) descending, then agent price ascending, then catalogue order.
 *
 * Source: seed §2.7 (request), §4 (negotiate row: "matching services sorted by coverage"); issue 4 §2.
 */
import { SERVICES, type ServiceDefinition } from './catalogue';
import { matchingTags, normaliseTag } from './discovery';

/** A service that covers at least one required capability and conflicts with none. */
export interface NegotiationMatch {
  service: ServiceDefinition;
  /** covered.length / required.length, between 0 (exclusive) and 1. */
  coverage: number;
  covered: string[];
  missing: string[];
  /** For each covered capability, the service tags it matched. */
  matched_tags: Record<string, string[]>;
}

/** A service left out because it explicitly does not support a required capability. */
export interface NegotiationExclusion {
  service: ServiceDefinition;
  conflicts: string[];
  reason: string;
}

/** Result of {@link negotiateCapabilities}. */
export interface NegotiationResult {
  /** The required capabilities after normalisation and de-duplication. */
  required: string[];
  matches: NegotiationMatch[];
  excluded: NegotiationExclusion[];
  /** Ids of the services covering none of the required capabilities. */
  unmatched: string[];
}

/**
 * Ranks services by how many of `required` they cover.
 *
 * @param required - capability tags (free spelling; normalised here). Must hold at least one non-empty tag.
 * @param services - the catalogue (default {@link SERVICES}).
 * @throws RangeError when no non-empty capability is given (the route answers 400 before that).
 */
export function negotiateCapabilities(
  required: readonly string[],
  services: readonly ServiceDefinition[] = SERVICES,
): NegotiationResult {
  const wanted = [...new Set(required.map(normaliseTag).filter((t) => t.length > 0))];
  if (wanted.length === 0) throw new RangeError('required_capabilities must hold at least one capability');
  const matches: (NegotiationMatch & { order: number })[] = [];
  const excluded: NegotiationExclusion[] = [];
  const unmatched: string[] = [];
  services.forEach((service, order) => {
    const negatives = new Set(service.constraints.does_not_support.map(normaliseTag));
    const conflicts = wanted.filter((cap) => negatives.has(cap));
    if (conflicts.length > 0) {
      excluded.push({
        service,
        conflicts,
        reason: `${service.id} explicitly does not support ${conflicts.join(', ')} (constraints.does_not_support)`,
      });
      return;
    }
    const matched_tags: Record<string, string[]> = {};
    const covered: string[] = [];
    const missing: string[] = [];
    for (const cap of wanted) {
      const tags = matchingTags(cap, service.capabilities);
      if (tags.length > 0) {
        covered.push(cap);
        matched_tags[cap] = tags;
      } else {
        missing.push(cap);
      }
    }
    if (covered.length === 0) {
      unmatched.push(service.id);
      return;
    }
    matches.push({ service, coverage: covered.length / wanted.length, covered, missing, matched_tags, order });
  });
  matches.sort(
    (a, b) => b.covered.length - a.covered.length || a.service.agent_price - b.service.agent_price || a.order - b.order,
  );
  return { required: wanted, matches: matches.map(({ order: _order, ...m }) => m), excluded, unmatched };
}
