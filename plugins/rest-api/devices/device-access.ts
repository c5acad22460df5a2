/**
 * Runs a device task for a known device: its endpoint and pinned certificate, its known working
 * credential first, then the stored credentials in sign-in order (a bounded number: AMT locks out
 * repeated failures), and a failure turned into a problem the client can act on.
 */
import { HttpError, type AmtSiteSettings, type SiteSettings } from '../../../core/plugin-api.js';
import type { DeviceTarget } from '../../../workers/tasks/task-types.js';
import type { CredentialVault, Device, DeviceAccess, DeviceAccessOptions, DeviceRegistry, DeviceRouter, TaskOutcome } from '../api.js';
import { deviceProblem, DeviceProblems } from './device-problems.js';

/** Speaks HTTP to a device that has its HTTP port open, as the scan's interrogation does; TLS otherwise. */
function usesTls(device: Device, amt: AmtSiteSettings): boolean {
  if (device.openPorts.includes(amt.ports.http)) return false;
  if (device.openPorts.includes(amt.ports.https)) return true;
  return device.tls;
}

export function createDeviceAccess(
  devices: DeviceRegistry,
  vault: CredentialVault,
  options: DeviceAccessOptions & { amt: AmtSiteSettings; tlsTrust: SiteSettings['deviceTls']; router: () => DeviceRouter | null },
): DeviceAccess {
  const { amt } = options;

  /** The device's address on the local network, unless the router (a CIRA tunnel) names another way in. */
  const targetOf = async (device: Device): Promise<DeviceTarget> => {
    const route = await options.router()?.(device);
    const tls = route ? route.tls : usesTls(device, amt);
    return {
      address: route ? route.address : device.ipAddress,
      port: route ? route.port : tls ? amt.ports.https : amt.ports.http,
      tls,
      timeouts: { connectMs: options.connectTimeoutMs, firstByteMs: options.requestTimeoutMs, totalMs: options.requestTimeoutMs },
      tlsTrust: options.tlsTrust,
      pinnedFingerprint: device.tlsFingerprint ?? null,
    };
  };

  /** Pins the certificate on first contact (a mismatch never replaces the pin), remembers the working credential. */
  const learn = async (deviceId: string, outcome: TaskOutcome, credentialId: string | null): Promise<void> => {
    const current = devices.get(deviceId);
    if (!current) return;
    const patch: Partial<Device> = {};
    if (outcome.tlsFingerprint && !current.tlsFingerprint) patch.tlsFingerprint = outcome.tlsFingerprint;
    if (credentialId && (current.credentialId !== credentialId || current.authStatus !== 'ok')) {
      patch.credentialId = credentialId;
      patch.authStatus = 'ok';
    }
    if (Object.keys(patch).length > 0) await devices.update(deviceId, patch);
  };

  /** Credential ids to try: the device's known one first, then the others in sign-in order. */
  const candidates = (device: Device): string[] => {
    const order = vault.list().map((c) => c.id);
    if (order.length === 0) throw DeviceProblems.noCredentials();
    const known = device.credentialId && order.includes(device.credentialId) ? [device.credentialId] : [];
    return [...known, ...order.filter((id) => !known.includes(id))].slice(0, options.credentialAttempts);
  };

  return {
    async run(device, operation, credential) {
      const target = await targetOf(device);
      if (credential) {
        const outcome = await operation({ target, credential });
        await learn(device.id, outcome, outcome.ok ? credential.id : null);
        if (!outcome.ok) throw deviceProblem(device, outcome.error);
        return { value: outcome as Extract<typeof outcome, { ok: true }>, credential };
      }
      const ids = candidates(device);
      for (const id of ids) {
        const unsealed = await vault.unseal(id).catch((err: unknown) => {
          // A credential deleted since the list was taken is skipped; anything else (a wrong master key) is not.
          if (err instanceof HttpError && err.status === 404) return null;
          throw err;
        });
        if (!unsealed) continue;
        const outcome = await operation({ target, credential: unsealed });
        await learn(device.id, outcome, outcome.ok ? id : null);
        if (outcome.ok) return { value: outcome as Extract<typeof outcome, { ok: true }>, credential: unsealed };
        if (outcome.error.code !== 'AMT_ERR_UNAUTHORIZED') throw deviceProblem(device, outcome.error);
      }
      throw DeviceProblems.unauthorized(device, ids.length);
    },
  };
}
