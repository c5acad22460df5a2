/**
 * CIRA tunnels: who dialed in, with which MPS account, and whether the tunnel is known to be the
 * device whose UUID it claims. An unverified tunnel (a device known from the LAN that could not prove
 * itself by its pinned certificate) carries nothing until an operator with cira:manage accepts it.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import { formatTime, Message } from '../components/field.js';
import { can, type Session } from '../session.js';

import type { CiraConnection as CiraTunnel } from '../shapes.js';

const IDENTITY_TEXT: Record<CiraTunnel['identity'], string> = {
  bound: 'bound: first known through this account',
  proven: 'proven: pinned certificate',
  accepted: 'accepted by an operator',
  provisioned: 'provisioned: account written by activation',
  unverified: 'unverified: not used',
};

const REFRESH_MS = 5_000;

export function CiraPage({ session }: { session: Session }) {
  const [list, setList] = useState<CiraTunnel[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const manager = can(session, 'cira:manage');
  const reload = () => api<CiraTunnel[]>('GET', '/cira/connections').then(setList, (err) => setError(errorText(err)));
  useEffect(() => {
    void reload();
    const timer = setInterval(() => void reload(), REFRESH_MS);
    return () => clearInterval(timer);
  }, []);

  const accept = async (t: CiraTunnel) => {
    const question =
      `Accept the tunnel from ${t.remoteAddress} (MPS account ${t.username}) as device ${t.uuid}?\n\n` +
      'The device is known from the LAN and this tunnel could not prove it is that device. Once accepted, credentials and operations go through it, ' +
      'and later tunnels of this account for this UUID are trusted too. Accept only if you know the device dials in with this account.';
    if (!confirm(question)) return;
    setError(null);
    setNotice(null);
    try {
      await api('POST', `/cira/connections/${encodeURIComponent(t.deviceId)}/accept`);
      await reload();
      setNotice(`The tunnel of ${t.uuid} is accepted as the device.`);
    } catch (err) {
      setError(errorText(err));
    }
  };

  const unverified = list?.filter((t) => !t.verified).length ?? 0;
  return (
    <section>
      <h1>CIRA tunnels</h1>
      <p>Devices that dial in over CIRA. A tunnel is used only once it is known to be its device.</p>
      {error && <Message kind="error">{error}</Message>}
      {notice && <Message kind="ok">{notice}</Message>}
      {unverified > 0 && (
        <Message kind="info">
          {unverified} unverified {unverified === 1 ? 'tunnel claims' : 'tunnels claim'} the UUID of a device known from the LAN: nothing goes through {unverified === 1 ? 'it' : 'them'} until
          {' '}proven or accepted.
        </Message>
      )}
      {list && list.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">UUID</th>
              <th scope="col">From</th>
              <th scope="col">MPS account</th>
              <th scope="col">Connected</th>
              <th scope="col">Identity</th>
              {manager && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {list.map((t) => (
              <tr key={t.deviceId} class={t.verified ? undefined : 'unverified'}>
                <td>
                  <a href={`/devices/${encodeURIComponent(t.deviceId)}`}>{t.uuid}</a>
                </td>
                <td>{t.remoteAddress}</td>
                <td>{t.username}</td>
                <td>{formatTime(t.connectedAt)}</td>
                <td>{IDENTITY_TEXT[t.identity] ?? t.identity}</td>
                {manager && (
                  <td class="row-actions">
                    {!t.verified && (
                      <button type="button" onClick={() => void accept(t)} aria-label={`Accept the tunnel of ${t.uuid}`}>
                        Accept
                      </button>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list && list.length === 0 && <p>No device is connected over CIRA.</p>}
    </section>
  );
}
