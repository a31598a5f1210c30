/**
 * The procurement workflow's id, shared by the API, the activities and the workflow. Its input, result and statuses
 * are the domain's (src/domain/procurement.ts). Workflow-safe.
 *
 * Source: issue 4 §3; issue 27 §3.
 */

/** Workflow id of a procurement (issue 4 §3: one workflow per run, id `procurement-<id>`). */
export const procurementWorkflowId = (procurementId: string): string => `procurement-${procurementId}`;
