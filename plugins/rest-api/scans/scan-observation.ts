import type { InterrogateOutput, ProbeCandidate } from '../../../workers/tasks/task-types.js';
import type { Device, ProvisioningState } from '../api.js';
import type { DeviceObservation } from '../devices/device-registry.js';

const STATE_NAMES: Record<number, ProvisioningState> = { 0: 'PRE', 1: 'IN', 2: 'POST' };

/**
 * Merges what the probe and the interrogation learned into a device observation. A device that
 * refused every credential keeps what could be learned without them: the RMCP pong's provisioning
 * state and the `Server` header's version.
 */
export function toObservation(candidate: ProbeCandidate, result: InterrogateOutput, known: Device | undefined, httpsPort: number): DeviceObservation {
  const fromPong = candidate.pong ? (STATE_NAMES[candidate.pong.provisioningState] ?? null) : null;
  const pinMismatch = result.error?.code === 'AMT_ERR_TLS_PIN_MISMATCH';
  // CIM_SoftwareIdentity gives major.minor.hotfix; the Server header adds the build number.
  const version = result.serverVersion && (!result.firmwareVersion || result.serverVersion.startsWith(result.firmwareVersion)) ? result.serverVersion : result.firmwareVersion;
  return {
    ipAddress: candidate.address,
    hostname: result.hostname,
    domain: result.domain,
    firmwareVersion: version,
    provisioningState: result.provisioningStateName ?? fromPong,
    provisioningMode: result.provisioningModeName,
    uuid: result.uuid ? result.uuid.toLowerCase() : null,
    tls: result.tls || candidate.openPorts.includes(httpsPort),
    // Pin on first contact only; a mismatch never replaces the pinned certificate.
    tlsFingerprint: known?.tlsFingerprint ?? (pinMismatch ? null : result.tlsFingerprint),
    openPorts: candidate.openPorts,
    authStatus: result.authStatus,
    credentialId: result.credentialId,
    online: result.authStatus !== 'unreachable',
  };
}
