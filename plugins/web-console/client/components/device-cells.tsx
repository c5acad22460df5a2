import type { Device } from '../hub.js';
import { formatTime } from './field.js';

export const DEVICE_COLUMNS = ['Address', 'Hostname', 'Firmware', 'Provisioning', 'TLS', 'Sign-in', 'Online', 'Last seen'] as const;

export const provisioning = (d: Device) => (d.provisioningState ? `${d.provisioningState}${d.provisioningMode ? ` (${d.provisioningMode})` : ''}` : 'unknown');

/** The cells of one device row after the address cell. */
export function DeviceCells({ device: d }: { device: Device }) {
  return (
    <>
      <td>{d.hostname ?? '—'}</td>
      <td>{d.firmwareVersion ?? '—'}</td>
      <td>{provisioning(d)}</td>
      <td>{d.tls ? 'TLS' : 'HTTP'}</td>
      <td class={`auth-${d.authStatus}`}>{d.authStatus}</td>
      <td>
        <span class={d.online ? 'badge online' : 'badge offline'}>{d.online ? 'online' : 'offline'}</span>
      </td>
      <td>{formatTime(d.lastSeen)}</td>
    </>
  );
}
