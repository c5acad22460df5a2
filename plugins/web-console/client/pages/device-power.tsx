import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import { Message } from '../components/field.js';
import { useHubEvent } from '../hub.js';
import type { SerialQueue } from '../components/serial-queue.js';

import type { PowerChangeResult as PowerResult, PowerStatus } from '../shapes.js';

type Action = PowerStatus['availableActions'][number];

/** Actions that interrupt whoever uses the machine ask first. */
export const CONFIRMED_ACTIONS = new Set(['off', 'reset', 'cycle', 'soft-off', 'soft-reset', 'sleep', 'hibernate']);

export const ACTION_LABELS: Record<string, string> = {
  on: 'Power on',
  off: 'Power off',
  reset: 'Reset',
  cycle: 'Power cycle',
  sleep: 'Sleep',
  hibernate: 'Hibernate',
  'soft-off': 'Soft off',
  'soft-reset': 'Soft reset',
};

/** One-time boot choices: written before a reset (or a power-on when off), used at that boot only. */
export const BOOT_LABELS = { bios: 'Boot to BIOS', pxe: 'Network boot (PXE)' } as const;

export function DevicePower({ deviceId, control, queue }: { deviceId: string; control: boolean; queue: SerialQueue }) {
  const [status, setStatus] = useState<PowerStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const read = () => queue(() => api<PowerStatus>('GET', `/power/${encodeURIComponent(deviceId)}`)).then(setStatus, (err) => setError(errorText(err)));
  useEffect(() => void read(), [deviceId]);
  useHubEvent('PowerStateChanged', (e) => {
    if (e.deviceId === deviceId) void read();
  });

  const run = async (action: Action, boot?: 'bios' | 'pxe') => {
    const label = boot ? BOOT_LABELS[boot] : (ACTION_LABELS[action] ?? action);
    if (CONFIRMED_ACTIONS.has(action) && !confirm(`${label}: this interrupts whoever uses the machine. Continue?`)) return;
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const res = await queue(() => api<PowerResult>('POST', `/power/${encodeURIComponent(deviceId)}`, { action, ...(boot ? { boot } : {}) }));
      setResult(res.ok ? `${label}: done${res.state ? `, now ${res.state}` : ''}.` : `${label}: the device answered ${res.returnValue}.`);
      await read();
    } catch (err) {
      setError(`${label}: ${errorText(err)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="power-title">
      <h2 id="power-title">Power</h2>
      {error && <Message kind="error">{error}</Message>}
      {result && <Message kind="ok">{result}</Message>}
      {status ? (
        <p>
          Power state: <strong data-testid="power-state">{status.state}</strong> ({status.powerState})
        </p>
      ) : (
        !error && <p>Reading the power state…</p>
      )}
      {control && status && (
        <div class="actions" role="group" aria-label="Power actions">
          {(['on', ...status.availableActions.filter((a) => a !== 'on')] as Action[])
            .filter((a) => status.availableActions.includes(a))
            .map((a) => (
              <button type="button" key={a} disabled={busy} onClick={() => run(a)}>
                {ACTION_LABELS[a] ?? a}
              </button>
            ))}
          {(['bios', 'pxe'] as const).map((boot) => {
            const action = status.availableActions.includes('reset') ? 'reset' : 'on';
            return (
              status.availableActions.includes(action) && (
                <button type="button" key={boot} disabled={busy} onClick={() => run(action, boot)}>
                  {BOOT_LABELS[boot]}
                </button>
              )
            );
          })}
        </div>
      )}
    </section>
  );
}
