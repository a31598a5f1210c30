export {
  type ConfiguredFacilitator,
  type FacilitatorAppOptions,
  createFacilitatorApp,
  createX402Facilitator,
} from './app';
export { FacilitatorReason } from './reasons';
export * from './schemas';
export { type FacilitatorHandle, type StartFacilitatorOptions, startFacilitator } from './server';
export { type FacilitatorSignerOptions, createFacilitatorSigner } from './signer';
