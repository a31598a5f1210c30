/**
 * Loading a receptionist and who may act on it (issue 38 §1): anyone reads a live receptionist and talks to it (a
 * visitor of the buyer's website); the buyer of its order (agent key or order secret) reads its state and
 * conversations.
 */
import type { OrderDoc, ReceptionistDoc } from '../../../db';
import { problem } from '../../../errors';
import type { ReceptionistRepository } from '../../../repos/receptionists';
import type { AppDeps } from '../../context';
import type { Actor } from '../../gate';
import type { RawRequest } from '../../operation';
import { buyerOf, orderOfPath } from '../orders/policy';

/** Loader of the receptionist of the path. @throws ProblemError 404 `receptionist_not_found` (also while not live). */
export function receptionistOfPath(repo: Pick<ReceptionistRepository, 'get'>) {
  return async (_input: unknown, raw: RawRequest): Promise<ReceptionistDoc> => {
    const id = raw.params.receptionist_id;
    const rc = id ? await repo.get(id) : null;
    if (!rc?.config) throw problem('receptionist_not_found', `No receptionist ${id ?? ''}`);
    return rc;
  };
}

/** The gate of the buyer's operations (`auth: 'buyer'`): the order (404), then the buyer's credential (401 / 403). */
export function receptionistOwnerGate(deps: Pick<AppDeps, 'services'>, action: string) {
  return {
    load: orderOfPath(deps),
    authorize: (actor: Actor, order: OrderDoc) => buyerOf(deps.services.wallets, actor, order, action),
  };
}
