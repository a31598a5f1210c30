/**
 * Who may act on ACP checkout sessions (issue 37 §1): the platform whose API key the operator issued (none → 401, any
 * other credential → 403), on its own sessions only (another platform's is not found: 404, as an unknown one). Then
 * the ACP headers: `API-Version` must be the one served (400 naming it) and every POST needs an `Idempotency-Key`
 * (400 `idempotency_key_required`). The delegated payment is the wallet owner's, by its agent key.
 */
import type { AcpPlatformDoc, CheckoutSessionDoc } from '../../../db';
import { problem } from '../../../errors';
import type { CheckoutSessionRepository } from '../../../repos/checkoutSessions';
import { ACP_VERSION } from '../../../services/checkoutSessions';
import type { AppDeps } from '../../context';
import { refuse, type Actor, type Refusal } from '../../gate';
import type { RawRequest } from '../../operation';

/** The ACP headers a policy checks (as the operation's `AcpHeaders` declares them). */
interface AcpInput {
  readonly headers: { 'API-Version'?: string | undefined; 'Idempotency-Key'?: string | undefined };
}

/**
 * 400 `unsupported_api_version` unless `API-Version` is the one served; 400 `idempotency_key_required` for a POST
 * without `Idempotency-Key`.
 */
export function checkAcpHeaders(input: AcpInput, post: boolean): void {
  const version = input.headers['API-Version'];
  if (version !== ACP_VERSION)
    throw problem(
      'unsupported_api_version',
      `${version ? `API-Version ${version} is not supported` : 'API-Version is required'}; supported: ${ACP_VERSION}`,
      { param: 'API-Version', supported_versions: [ACP_VERSION] },
    );
  if (post && !input.headers['Idempotency-Key'])
    throw problem('idempotency_key_required', 'Idempotency-Key header is required', { param: 'Idempotency-Key' });
}

/** What an ACP gate resolves: the calling platform (set by `authorize`) and the session of the path, if any. */
export interface AcpCaller {
  platform: AcpPlatformDoc | null;
  session: CheckoutSessionDoc | null;
}

/** A caller whose platform and session the gate checked. */
export interface SessionCaller {
  platform: AcpPlatformDoc;
  session: CheckoutSessionDoc;
}

/** The platform of `actor`'s Bearer token, or the refusal (401 without a credential, 403 with another). */
async function platformOf(
  repo: Pick<CheckoutSessionRepository, 'platformOfKey'>,
  actor: Actor,
): Promise<AcpPlatformDoc | Refusal> {
  const platform = actor.token?.startsWith('acp_') ? await repo.platformOfKey(actor.token) : null;
  return (
    platform ??
    refuse(
      actor,
      'Send the ACP API key the operator issued your platform as a Bearer token',
      'The credential sent is not an ACP platform API key',
    )
  );
}

/** The gate of `POST /checkout_sessions`: a platform, then the ACP headers. */
export function platformGate(repo: CheckoutSessionRepository, post: boolean) {
  return {
    load: (): AcpCaller => ({ platform: null, session: null }),
    async authorize(actor: Actor, caller: AcpCaller, input: AcpInput): Promise<'platform' | Refusal> {
      const platform = await platformOf(repo, actor);
      if ('refused' in platform) return platform;
      checkAcpHeaders(input, post);
      caller.platform = platform;
      return 'platform';
    },
  };
}

/**
 * The gate of an operation on the session of the path: a platform (401 / 403), the ACP headers (400), then its own
 * session (404 `checkout_session_not_found` for an unknown one or another platform's).
 */
export function sessionGate(repo: CheckoutSessionRepository, post: boolean) {
  return {
    async load(_input: unknown, raw: RawRequest): Promise<AcpCaller> {
      const id = raw.params.checkout_session_id ?? '';
      return { platform: null, session: id.length <= 128 ? await repo.get(id) : null };
    },
    async authorize(actor: Actor, caller: AcpCaller, input: AcpInput): Promise<'platform' | Refusal> {
      const platform = await platformOf(repo, actor);
      if ('refused' in platform) return platform;
      checkAcpHeaders(input, post);
      if (!caller.session || caller.session.platform_id !== platform._id)
        throw problem('checkout_session_not_found', 'No checkout session of this platform by that id');
      caller.platform = platform;
      return 'platform';
    },
  };
}

/** What the delegated-payment gate resolves: the wallet of the agent key sent. */
export interface WalletCaller {
  agentId: string | null;
}

/** The gate of `POST /agentic_commerce/delegate_payment`: an agent key (401 / 403), then the ACP headers. */
export function walletGate(deps: Pick<AppDeps, 'services'>) {
  return {
    load: (): WalletCaller => ({ agentId: null }),
    async authorize(actor: Actor, caller: WalletCaller, input: AcpInput): Promise<'agent_key' | Refusal> {
      const agentId = actor.token ? await deps.services.wallets.idOfKey(actor.token) : null;
      if (!agentId)
        return refuse(
          actor,
          'Send the agent key of the wallet to delegate as a Bearer token',
          'The credential sent is not an agent key',
        );
      checkAcpHeaders(input, true);
      caller.agentId = agentId;
      return 'agent_key';
    },
  };
}
