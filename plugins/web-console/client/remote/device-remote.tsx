/**
 * A device's remote console: Remote desktop (KVM) and Serial console (SOL) viewers, the features
 * switches and consent policy, and the consent code prompt when the device needs consent.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import { Message } from '../components/field.js';
import { KvmViewer } from './kvm-viewer.js';
import { SolViewer } from './sol-viewer.js';
import type { RedirectionState, SessionTicket } from '../shapes.js';

type Mode = SessionTicket['mode'];
const GIVEN = new Set(['received', 'in-session']);
const needsConsent = (s: RedirectionState, mode: Mode) => !GIVEN.has(s.optInState) && (s.userConsent === 'all' || (s.userConsent === 'kvm' && mode === 'kvm'));

export function DeviceRemote({ deviceId }: { deviceId: string }) {
  const base = `/redirection/${encodeURIComponent(deviceId)}`;
  const [state, setState] = useState<RedirectionState | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [open, setOpen] = useState<Mode | null>(null);
  const [asking, setAsking] = useState<Mode | null>(null);
  const [code, setCode] = useState('');
  const read = () => api<RedirectionState>('GET', base).then(setState, (err) => setError(errorText(err)));
  useEffect(() => void read(), [deviceId]);

  const act = async (work: () => Promise<unknown>) => {
    setError(null);
    try {
      await work();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const start = (mode: Mode) => {
    setNotice(null);
    if (state && needsConsent(state, mode)) return setAsking(mode);
    setOpen(mode);
  };
  const requestConsent = () => act(async () => {
    await api('POST', `${base}/consent`);
    setNotice('The device shows a 6-digit code on its screen: ask the person at the machine to read it out.');
    await read();
  });
  const sendCode = (event: Event) => {
    event.preventDefault();
    void act(async () => {
      await api('POST', `${base}/consent/code`, { code });
      setCode('');
      const mode = asking;
      setAsking(null);
      setNotice(null);
      await read();
      if (mode) setOpen(mode);
    });
  };
  const closed = (why: string) => {
    setOpen(null);
    setNotice(`Session ended: ${why}.`);
    void read();
  };
  const write = (change: Record<string, unknown>) => act(async () => setState(await api<RedirectionState>('PUT', `${base}/features`, change)));

  return (
    <section aria-labelledby="remote-title">
      <h2 id="remote-title">Remote console</h2>
      {error && <Message kind="error">{error}</Message>}
      {notice && <Message kind="ok">{notice}</Message>}
      {state && (
        <div class="actions" role="group" aria-label="Remote console">
          <button type="button" disabled={!state.features.kvm || open !== null} onClick={() => start('kvm')}>
            Remote desktop
          </button>
          <button type="button" disabled={!state.features.sol || open !== null} onClick={() => start('sol')}>
            Serial console
          </button>
          <label>
            <input type="checkbox" checked={state.features.kvm} onChange={(e) => write({ kvm: (e.target as HTMLInputElement).checked })} /> KVM
          </label>
          <label>
            <input type="checkbox" checked={state.features.sol} onChange={(e) => write({ sol: (e.target as HTMLInputElement).checked })} /> SOL
          </label>
          <label>
            <input type="checkbox" checked={state.features.ider} onChange={(e) => write({ ider: (e.target as HTMLInputElement).checked })} /> IDE-R
          </label>
          <label>
            Consent{' '}
            <select value={state.userConsent} onChange={(e) => write({ userConsent: (e.target as HTMLSelectElement).value })}>
              <option value="none">not needed</option>
              <option value="kvm">for KVM</option>
              <option value="all">for everything</option>
            </select>
          </label>
          <span>Consent: {state.optInState}</span>
        </div>
      )}
      {asking && (
        <form class="consent" onSubmit={sendCode} aria-label="User consent">
          <p>This device needs the consent of the person at the machine.</p>
          <button type="button" onClick={requestConsent}>
            Show a code on the device
          </button>
          <label>
            Code{' '}
            <input inputMode="numeric" pattern="[0-9]{6}" maxLength={6} required value={code} onInput={(e) => setCode((e.target as HTMLInputElement).value)} />
          </label>
          <button type="submit">Send code</button>
          <button type="button" onClick={() => void act(async () => (await api('DELETE', `${base}/consent`), setAsking(null)))}>
            Cancel
          </button>
        </form>
      )}
      {open === 'kvm' && <KvmViewer deviceId={deviceId} onClose={closed} />}
      {open === 'sol' && <SolViewer deviceId={deviceId} onClose={closed} />}
    </section>
  );
}
