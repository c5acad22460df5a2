/** The device simulator, for tests and the demo. See fleet-options.ts for every option. */
export { startFleet, type Fleet } from './fleet.js';
export type { FleetOptions, DeviceConfig, Misbehaviour, ProvisioningState, CertificateName } from './fleet-options.js';
export type { FleetManifest, DeviceManifest } from './manifest.js';
export type { DeviceCounters } from './device-state.js';
export { SimDevice } from './sim-device.js';
export { SimCiraClient, type CiraOptions, type CiraFault, type CiraStatus, type CiraCounters } from './cira-client.js';
export { certificatePair } from './sim-certs.js';
export { fleetAddresses } from './address-range.js';
