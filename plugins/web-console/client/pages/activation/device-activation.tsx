/** On a device's page: how the gateway activated it (mode, profile, when), from its latest activation records. */
import { useEffect, useState } from 'preact/hooks';
import type { ActivationRecord } from '../../shapes.js';
import { api } from '../../api.js';
import { formatTime } from '../../components/field.js';

export function DeviceActivation({ uuid }: { uuid: string }) {
  const [records, setRecords] = useState<ActivationRecord[] | null>(null);
  useEffect(() => {
    api<ActivationRecord[]>('GET', `/activation/records?uuid=${encodeURIComponent(uuid)}&limit=20`).then(setRecords, () => setRecords([]));
  }, [uuid]);
  if (!records) return null;
  const activated = records.find((r) => r.action === 'activate' && r.outcome === 'succeeded');
  const last = records.find((r) => r.outcome === 'succeeded' || r.outcome === 'failed');
  return (
    <section aria-labelledby="device-activation-title">
      <h2 id="device-activation-title">Activation</h2>
      {activated ? (
        <dl class="details">
          <dt>Activated</dt>
          <dd>
            {activated.mode === 'acm' ? 'admin control mode' : 'client control mode'} by this gateway, {formatTime(activated.finishedAt)}
          </dd>
          <dt>Profile</dt>
          <dd>{activated.profile}</dd>
          <dt>From</dt>
          <dd>{activated.remoteAddress}</dd>
          {last && last !== activated && (
            <>
              <dt>Since</dt>
              <dd>
                {last.task ? `${last.action} ${last.task}` : last.action} {last.outcome}, {formatTime(last.finishedAt)}
              </dd>
            </>
          )}
        </dl>
      ) : (
        <p>{records.length ? `Last: ${records[0]!.action} ${records[0]!.outcome}.` : 'Not activated by this gateway (found by a scan or a tunnel).'}</p>
      )}
    </section>
  );
}
