/**
 * `deviceGate.proveIdentity`: does a path lead to the device known on the LAN? The device's TLS
 * certificate, pinned on the LAN, must be presented on its TLS management port along the path.
 * Only the private key of that certificate completes the handshake, so neither a UUID nor a Digest
 * realm (both readable by anyone on the LAN) stands in for it. The proof sends no credential (an
 * unauthenticated request at most), so the gate lets it go along a path not proven yet; it runs in the
 * device's turn like every other device I/O.
 */
import type { WorkerPool } from '../../../core/plugin-api.js';
import type { DeviceGate, DeviceRoute, DeviceSettings } from '../api.js';
import type { DevicePaths } from './device-paths.js';
import type { DeviceTurns } from './device-turns.js';
import { turnKeyOf } from './device-gate.js';
import { tasksFor } from './gate-target.js';

const PROOF_TIMEOUT_MS = 15_000;

export interface IdentityProofParts {
  paths: DevicePaths;
  turns: DeviceTurns;
  pool: WorkerPool;
  settings: DeviceSettings;
}

export function createIdentityProof({ paths, turns, pool, settings }: IdentityProofParts): DeviceGate['proveIdentity'] {
  return async (device, via, options) => {
    const pin = device.tlsFingerprint;
    if (!pin) return 'no-proof';
    const offer = await paths.offer(device, via, 'proof');
    if (!offer?.tls) return 'no-proof';
    const { identity: _identity, ...route } = offer;
    const timeoutMs = options?.timeoutMs ?? PROOF_TIMEOUT_MS;
    const subject = { address: device.ipAddress, device };
    const result = await turns.run(turnKeyOf(subject), () =>
      tasksFor(pool, route as DeviceRoute).run('wsman-check', {
        address: 'channel' in route ? device.ipAddress : route.address,
        ports: { ...settings.ports, http: 0, https: route.port },
        credential: null,
        timeouts: { connectMs: timeoutMs, firstByteMs: timeoutMs, totalMs: timeoutMs },
        tlsTrust: { ...settings.tlsTrust },
        pinnedFingerprint: pin,
        ...('channel' in route ? { channel: route.channel } : {}),
      }),
    );
    if (result.tlsFingerprint === pin && result.error?.code !== 'AMT_ERR_TLS_PIN_MISMATCH') return 'proven';
    return result.tlsFingerprint ? 'mismatch' : 'failed';
  };
}
