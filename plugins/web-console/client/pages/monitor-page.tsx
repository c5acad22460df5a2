/** The online summary as a donut, and the monitor's schedule. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import { Message } from '../components/field.js';
import { OnlineDonut } from '../components/online-donut.js';
import { useHubEvent } from '../hub.js';

import type { MonitorSchedule as Schedule, MonitorSummary as Summary } from '../shapes.js';

export function MonitorPage() {
  const [summary, setSummary] = useState<Summary | null>(null);
  const [schedule, setSchedule] = useState<Schedule | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [changes, setChanges] = useState(0);
  useEffect(() => {
    const read = () =>
      Promise.all([api<Summary>('GET', '/monitor/summary'), api<Schedule>('GET', '/monitor/schedule')]).then(
        ([s, p]) => {
          setSummary(s);
          setSchedule(p);
        },
        (err) => setError(errorText(err)),
      );
    void read();
    const t = setInterval(read, 10_000);
    return () => clearInterval(t);
  }, [changes]);
  // Status changes arrive in bursts: one re-read a second after the first of a burst, not one per change.
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => void (pending.current && clearTimeout(pending.current)), []);
  useHubEvent('DeviceStatusChanged', () => {
    pending.current ??= setTimeout(() => {
      pending.current = null;
      setChanges((c) => c + 1);
    }, 1000);
  });

  return (
    <section>
      <h1>Monitoring</h1>
      {error && <Message kind="error">{error}</Message>}
      {summary && <OnlineDonut summary={summary} />}
      {schedule && (
        <section aria-labelledby="schedule-title">
          <h2 id="schedule-title">Monitor schedule</h2>
          <dl class="details">
            <dt>Probe interval</dt>
            <dd>every {schedule.intervalSeconds} s</dd>
            <dt>Devices tracked</dt>
            <dd>{schedule.tracked.toLocaleString()}</dd>
            <dt>Probing now</dt>
            <dd>{schedule.probing}</dd>
            <dt>Waiting for capacity</dt>
            <dd>{schedule.waiting}</dd>
            <dt>Last interval</dt>
            <dd>{schedule.lastInterval ? `${schedule.lastInterval.probes} probes, lag at most ${schedule.lastInterval.maxLagMs} ms` : 'none yet'}</dd>
            <dt>Keeping up</dt>
            <dd>{schedule.keepingUp ? 'yes' : 'no: devices are probed later than their interval'}</dd>
          </dl>
        </section>
      )}
    </section>
  );
}
