import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import { Message } from '../components/field.js';
import type { SerialQueue } from '../components/serial-queue.js';

import type { HardwareReport } from '../shapes.js';

type Part = HardwareReport['baseboard'];

const part = (p: Part) => (p ? [p.manufacturer, p.model, p.version, p.serialNumber && `serial ${p.serialNumber}`].filter(Boolean).join(', ') || '—' : '—');
const gib = (bytes: number | null) => (bytes === null ? '—' : `${(bytes / 2 ** 30).toFixed(1)} GiB`);

export function DeviceHardware({ deviceId, queue }: { deviceId: string; queue: SerialQueue }) {
  const [report, setReport] = useState<HardwareReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    queue(() => api<HardwareReport>('GET', `/monitor/${encodeURIComponent(deviceId)}/hardware`)).then(setReport, (err) => setError(errorText(err)));
  }, [deviceId]);
  return (
    <section aria-labelledby="hardware-title">
      <h2 id="hardware-title">Hardware</h2>
      {error && <Message kind="error">{error}</Message>}
      {!report && !error && <p>Reading the inventory…</p>}
      {report && (
        <>
          <dl class="details">
            <dt>System</dt>
            <dd>{part(report.system)}</dd>
            <dt>Baseboard</dt>
            <dd>{part(report.baseboard)}</dd>
            <dt>BIOS</dt>
            <dd>{report.bios ? [report.bios.manufacturer, report.bios.version, report.bios.releaseDate].filter(Boolean).join(', ') : '—'}</dd>
            <dt>Processors</dt>
            <dd>{report.processors.map((p) => [p.manufacturer, p.model, p.maxClockSpeedMhz && `${p.maxClockSpeedMhz} MHz`].filter(Boolean).join(' ')).join('; ') || '—'}</dd>
            <dt>Storage</dt>
            <dd>{report.storage.map((s) => `${s.deviceId ?? 'disk'} ${s.maxMediaSizeKb ? `${Math.round(s.maxMediaSizeKb / 1e6)} GB` : ''}`).join('; ') || '—'}</dd>
          </dl>
          <table>
            <caption>Memory</caption>
            <thead>
              <tr>
                <th scope="col">Bank</th>
                <th scope="col">Capacity</th>
                <th scope="col">Speed</th>
                <th scope="col">Manufacturer</th>
              </tr>
            </thead>
            <tbody>
              {report.memory.map((m, i) => (
                <tr key={i}>
                  <td>{m.bankLabel ?? '—'}</td>
                  <td>{gib(m.capacityBytes)}</td>
                  <td>{m.speedMhz ? `${m.speedMhz} MHz` : '—'}</td>
                  <td>{m.manufacturer ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {report.unavailable.length > 0 && <p>Not available: {report.unavailable.map((u) => `${u.className} (${u.reason})`).join(', ')}</p>}
        </>
      )}
    </section>
  );
}
