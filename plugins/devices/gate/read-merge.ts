/**
 * The one merge of what a device read learnt into the device record, whichever path read it (a
 * scan on the local network, a refresh through a CIRA tunnel). A read that could not sign in keeps
 * what can be learnt without credentials (the RMCP pong's provisioning state, the `Server`
 * header's version) and never erases what an earlier read knew.
 */
import type { InterrogateOutput, RmcpPong } from '../../../workers/tasks/task-types.js';
import type { Device, ProvisioningState } from '../api.js';
import type { DeviceObservation } from '../registry/device-registry.js';
import type { TaskOutcome } from './gate-types.js';

const STATE_NAMES: Record<number, ProvisioningState> = { 0: 'PRE', 1: 'IN', 2: 'POST' };

/** A read as the outcome of one gate attempt, for the gate to learn from (sign-in memory, pin, credential). */
export function readOutcome(result: InterrogateOutput): TaskOutcome {
  const meta = { tlsFingerprint: result.tlsFingerprint, failedLogins: result.failedLogins, tlsProtocol: result.tlsProtocol };
  if (result.authStatus === 'ok') return { ok: true, ...meta };
  const error = result.error ?? { code: 'AMT_ERR_UNAUTHORIZED' as const, message: 'the device refused the credential' };
  const refused = result.authStatus === 'unauthorized' && error.code !== 'AMT_ERR_LOCKED_OUT';
  return { ok: false, error: refused ? { ...error, code: 'AMT_ERR_UNAUTHORIZED' } : error, ...meta };
}

/** CIM_SoftwareIdentity gives major.minor.hotfix; the Server header adds the build number. */
function versionOf(result: InterrogateOutput): string | null {
  return result.serverVersion && (!result.firmwareVersion || result.serverVersion.startsWith(result.firmwareVersion)) ? result.serverVersion : result.firmwareVersion;
}

/** The certificate to pin: on first contact only; a mismatch never replaces the pinned one. */
function pinOf(known: Readonly<Device> | undefined, result: InterrogateOutput): string | null {
  return known?.tlsFingerprint ?? (result.error?.code === 'AMT_ERR_TLS_PIN_MISMATCH' ? null : result.tlsFingerprint);
}

/** What a scan's read of an address gives the registry's `record` (the device with the same identity). */
export function scanObservation(
  read: { address: string; openPorts: readonly number[]; pong?: RmcpPong | null },
  result: InterrogateOutput,
  known: Readonly<Device> | undefined,
  httpsPort: number,
): DeviceObservation {
  const fromPong = read.pong ? (STATE_NAMES[read.pong.provisioningState] ?? null) : null;
  return {
    ipAddress: read.address,
    hostname: result.hostname,
    domain: result.domain,
    firmwareVersion: versionOf(result),
    provisioningState: result.provisioningStateName ?? fromPong,
    provisioningMode: result.provisioningModeName,
    uuid: result.uuid ? result.uuid.toLowerCase() : null,
    tls: result.tls || read.openPorts.includes(httpsPort),
    tlsFingerprint: pinOf(known, result),
    openPorts: [...read.openPorts],
    authStatus: result.authStatus,
    credentialId: result.credentialId,
    online: result.authStatus !== 'unreachable',
  };
}

/** The patch a refresh of a stored device gives it: only what it learnt. */
export function refreshPatch(device: Readonly<Device>, result: InterrogateOutput): Partial<Device> {
  const observed = scanObservation({ address: device.ipAddress, openPorts: [] }, result, device, -1);
  const patch: Partial<Device> = { authStatus: result.authStatus, tls: result.tls };
  for (const key of ['firmwareVersion', 'provisioningState', 'provisioningMode', 'hostname', 'domain'] as const) {
    if (observed[key]) (patch as Record<string, unknown>)[key] = observed[key];
  }
  if (result.authStatus === 'ok' && result.credentialId) patch.credentialId = result.credentialId;
  if (observed.tlsFingerprint && !device.tlsFingerprint) patch.tlsFingerprint = observed.tlsFingerprint;
  return patch;
}
