/**
 * The hosted receptionist follows its subscription (issue 38 §1): the subscription workflow sets its state at each
 * change (suspended on an unpaid renewal, active once paid, ended with the subscription). A factory over one narrow
 * port; the write carries the subscription's record version, so a retry or a late write changes nothing.
 */
import type { ReceptionistRepository, StateWrite } from '../src/repos/receptionists';
import type { ReceptionistStateRequest } from '../src/domain/receptionist';

/** What the activity needs: the receptionists' state writer. */
export interface ReceptionistActivityPorts {
  receptionists: Pick<ReceptionistRepository, 'setState'>;
}

/** The receptionist activities. */
export function createReceptionistActivities(ports: ReceptionistActivityPorts) {
  return {
    /**
     * Sets the state of the order's receptionist as of subscription write `version`: `applied`, `unchanged` (as new
     * or newer already there: a retry) or `absent` (the order has no receptionist: not hosted, nothing to do).
     */
    async setReceptionistState(req: ReceptionistStateRequest): Promise<StateWrite> {
      return ports.receptionists.setState(req.orderId, req.state, req.reason, req.version);
    },
  };
}

/** The receptionist activities' type, for `proxyActivities`. */
export type ReceptionistActivities = ReturnType<typeof createReceptionistActivities>;
