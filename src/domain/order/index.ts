/** The order model (issue 27 §3): types and records (./model.ts) and the state machine (./status.ts). */
export * from './model';
export * from './status';
