/**
 * Proves that a tunnel is the device a LAN scan knows: the device's TLS certificate, pinned on the
 * LAN, must be presented inside a channel to the device's 16993. Only the private key of that
 * certificate completes the handshake, so neither a UUID nor a Digest realm (both readable by anyone
 * on the LAN) stands in for it. The check sends no credential: an unauthenticated request at most.
 */
import type { WorkerPool } from '../../../core/plugin-api.js';
import type { Device, DeviceChannel, DeviceSettings } from 'amt-gateway/devices';
import { AMT_PORTS } from '../../../workers/amt/amt-ports.js';

export const TLS_PORT = AMT_PORTS.https;

/** `proven`: the pinned certificate; `mismatch`: another one; `no-proof`: no pin, or no 16993 forwarded; `failed`: no TLS answer. */
export type ProofResult = 'proven' | 'mismatch' | 'no-proof' | 'failed';

export interface ProofParts {
  pool: Pick<WorkerPool, 'runInProcess'>;
  settings: DeviceSettings;
  /** Runs the check within the tunnelled operations' bound. */
  schedule<T>(task: () => Promise<T>): Promise<T>;
  timeoutMs: number;
}

export async function provePinnedCertificate(parts: ProofParts, device: Readonly<Device>, forwardedPorts: readonly number[], channel: () => DeviceChannel): Promise<ProofResult> {
  const pin = device.tlsFingerprint;
  if (!pin || !forwardedPorts.includes(TLS_PORT)) return 'no-proof';
  const { timeoutMs } = parts;
  const result = await parts.schedule(() =>
    parts.pool.runInProcess('wsman-check', {
      address: device.ipAddress,
      ports: { ...parts.settings.ports, http: 0, https: TLS_PORT },
      credential: null,
      timeouts: { connectMs: timeoutMs, firstByteMs: timeoutMs, totalMs: timeoutMs },
      tlsTrust: { ...parts.settings.tlsTrust },
      pinnedFingerprint: pin,
      channel: channel(),
    }),
  );
  if (result.tlsFingerprint === pin && result.error?.code !== 'AMT_ERR_TLS_PIN_MISMATCH') return 'proven';
  return result.tlsFingerprint ? 'mismatch' : 'failed';
}
