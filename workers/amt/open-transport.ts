/** Opens a bounded HTTP transport to a device target (device-target.ts), its defaults filled in. */
import { createDeviceTransport, type DeviceTransport } from './http-transport.js';
import { DEFAULT_MAX_RESPONSE_BYTES, resolveTimeouts, validateTarget, type DeviceTarget } from './device-target.js';

/** Opens a bounded transport to a validated target. */
export function openTransport(target: DeviceTarget, signal?: AbortSignal): DeviceTransport {
  validateTarget(target);
  return createDeviceTransport({
    host: target.address,
    port: target.port,
    tls: target.tls,
    timeouts: resolveTimeouts(target.timeouts),
    maxResponseBytes: target.maxResponseBytes && target.maxResponseBytes > 0 ? target.maxResponseBytes : DEFAULT_MAX_RESPONSE_BYTES,
    tlsTrust: {
      mode: target.tlsTrust?.mode === 'ca' ? 'ca' : 'tofu',
      ...(target.tlsTrust?.caPem ? { caPem: target.tlsTrust.caPem } : {}),
      ...(target.tlsTrust?.legacyTls === true ? { legacyTls: true } : {}),
      pinnedFingerprint: target.pinnedFingerprint ?? null,
    },
    ...(target.channel ? { channel: target.channel } : {}),
    signal,
  });
}
