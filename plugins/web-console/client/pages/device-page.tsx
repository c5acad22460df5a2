/** One device: details, power state and actions, hardware inventory, event log, delete. */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import { formatTime, Message, yesNo } from '../components/field.js';
import { provisioning } from '../components/device-cells.js';
import { serialQueue } from '../components/serial-queue.js';
import { useHubEvent, type Device } from '../hub.js';
import { navigate } from '../router.js';
import { can, type Session } from '../session.js';
import { DeviceHardware } from './device-hardware.js';
import { DeviceEvents } from './device-events.js';
import { DevicePower } from './device-power.js';
import { DeviceRemote } from '../remote/device-remote.js';
import { DeviceActivation } from './activation/device-activation.js';
import { BootFromImage } from '../remote/boot-from-image.js';

export function DevicePage({ id, session }: { id: string; session: Session }) {
  const [device, setDevice] = useState<Device | null>(null);
  const [error, setError] = useState<string | null>(null);
  const queue = useMemo(serialQueue, [id]);
  useEffect(() => {
    setDevice(null);
    api<Device>('GET', `/devices/${encodeURIComponent(id)}`).then(setDevice, (err) => setError(errorText(err)));
  }, [id]);
  useHubEvent('DeviceStatusChanged', (e) => {
    if (device && e.deviceId === device.id) setDevice({ ...device, online: e.online, lastSeen: e.lastSeen ?? device.lastSeen });
  });

  const remove = async () => {
    if (!device || !confirm(`Delete ${device.hostname ?? device.ipAddress} from the device list? A later scan finds it again.`)) return;
    try {
      await api('DELETE', `/devices/${encodeURIComponent(device.id)}`);
      navigate('/devices');
    } catch (err) {
      setError(errorText(err));
    }
  };

  if (error && !device) return <Message kind="error">{error}</Message>;
  if (!device) return <p>Loading…</p>;
  return (
    <section>
      <p>
        <a href="/devices">← Devices</a>
      </p>
      <h1>{device.hostname ?? device.ipAddress}</h1>
      {error && <Message kind="error">{error}</Message>}
      <dl class="details">
        <dt>Address</dt>
        <dd>{device.ipAddress}</dd>
        <dt>Hostname</dt>
        <dd>{device.hostname ?? '—'}</dd>
        <dt>UUID</dt>
        <dd>{device.uuid ?? '—'}</dd>
        <dt>Firmware</dt>
        <dd>{device.firmwareVersion ?? '—'}</dd>
        <dt>Provisioning</dt>
        <dd>{provisioning(device)}</dd>
        <dt>TLS</dt>
        <dd>{yesNo(device.tls)}</dd>
        <dt>Open ports</dt>
        <dd>{device.openPorts.join(', ') || '—'}</dd>
        <dt>Sign-in</dt>
        <dd>{device.authStatus}</dd>
        <dt>Online</dt>
        <dd>{device.online ? 'online' : 'offline'}</dd>
        <dt>First seen</dt>
        <dd>{formatTime(device.firstSeen)}</dd>
        <dt>Last seen</dt>
        <dd>{formatTime(device.lastSeen)}</dd>
      </dl>
      {can(session, 'devices:delete') && (
        <button type="button" class="danger" onClick={remove}>
          Delete device
        </button>
      )}
      {device.uuid && can(session, 'activation:read') && <DeviceActivation uuid={device.uuid} />}
      {can(session, 'power:read') && <DevicePower deviceId={device.id} control={can(session, 'power:control')} queue={queue} />}
      {can(session, 'remote:connect') && <DeviceRemote deviceId={device.id} />}
      {can(session, 'remote:connect') && <BootFromImage deviceId={device.id} powerControl={can(session, 'power:control')} />}
      {can(session, 'monitor:read') && <DeviceHardware deviceId={device.id} queue={queue} />}
      {can(session, 'monitor:read') && <DeviceEvents deviceId={device.id} queue={queue} />}
    </section>
  );
}
