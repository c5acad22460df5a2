/**
 * Boot from image: choose an uploaded image, start (the gateway opens an IDE-R session serving it,
 * then resets the machine, or powers it on, to boot from it), watch the bytes served, stop. The
 * gateway serves the image itself: this page may be closed meanwhile.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, errorText } from '../api.js';
import { Message } from '../components/field.js';
import { useHubEvent } from '../hub.js';
import { formatBytes } from '../images.js';
import type { Image, SessionInfo as IderSession } from '../shapes.js';


export function BootFromImage({ deviceId, powerControl }: { deviceId: string; powerControl: boolean }) {
  const [images, setImages] = useState<Image[] | null>(null);
  const [chosen, setChosen] = useState('');
  const [session, setSession] = useState<IderSession | null>(null);
  const [served, setServed] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  /** The images plugin is off on this gateway: nothing to boot from, nothing shown. */
  const [off, setOff] = useState(false);
  const readSession = () =>
    api<IderSession[]>('GET', '/redirection/sessions').then((all) => {
      const open = all.find((s) => s.deviceId === deviceId && s.mode === 'ider') ?? null;
      setSession(open);
      if (open) setServed((s) => Math.max(s, 0));
    });
  useEffect(() => {
    api<Image[]>('GET', '/images').then((list) => {
      setImages(list);
      setChosen((c) => c || (list.find((i) => i.available)?.id ?? ''));
    }, (err) => (err instanceof ApiError && err.status === 404 ? setOff(true) : setError(errorText(err))));
    void readSession().catch(() => undefined);
  }, [deviceId]);
  useHubEvent('IderSessionProgress', (p) => {
    if (p.deviceId !== deviceId) return;
    setServed(p.bytesServed);
    if (p.ended) {
      setSession(null);
      setNotice(`Session ended (${p.ended}) after ${formatBytes(p.bytesServed)} served.`);
    }
  });

  const image = images?.find((i) => i.id === chosen);
  if (off) return null;
  const start = async () => {
    if (!image) return;
    const boot = image.kind === 'cd' ? 'ider-cd' : 'ider-floppy';
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      await api('POST', `/redirection/${encodeURIComponent(deviceId)}/sessions`, { mode: 'ider', [image.kind]: image.id });
      setServed(0);
      await readSession();
      if (powerControl) {
        const power = await api<{ availableActions: string[] }>('GET', `/power/${encodeURIComponent(deviceId)}`);
        const action = power.availableActions.includes('reset') ? 'reset' : 'on';
        if (!confirm(`Boot from ${image.name}: this ${action === 'reset' ? 'resets' : 'powers on'} the machine. Continue?`)) {
          setNotice(`Serving ${image.name}: the machine boots from it at its next restart.`);
          return;
        }
        await api('POST', `/power/${encodeURIComponent(deviceId)}`, { action, boot });
        setNotice(`Booting from ${image.name}.`);
      } else setNotice(`Serving ${image.name}: the machine boots from it when it is restarted with IDE redirection.`);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const stop = async () => {
    if (!session) return;
    setBusy(true);
    try {
      await api('DELETE', `/redirection/sessions/${encodeURIComponent(session.id)}`);
      setSession(null);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="boot-image-title">
      <h2 id="boot-image-title">Boot from image</h2>
      {error && <Message kind="error">{error}</Message>}
      {notice && <Message kind="ok">{notice}</Message>}
      {images && images.length === 0 && <p>No images uploaded yet: add one on the Images page.</p>}
      {images && images.length > 0 && (
        <div class="actions" role="group" aria-label="Boot from image">
          <label>
            Image{' '}
            <select value={chosen} disabled={session !== null} onChange={(e) => setChosen(e.currentTarget.value)}>
              {images.map((i) => (
                <option key={i.id} value={i.id} disabled={!i.available}>
                  {i.name} ({i.kind === 'cd' ? 'CD' : 'floppy'}, {formatBytes(i.sizeBytes)})
                </option>
              ))}
            </select>
          </label>
          {session ? (
            <button type="button" class="danger" disabled={busy} onClick={stop}>
              Stop
            </button>
          ) : (
            <button type="button" disabled={busy || !image} onClick={start}>
              Start
            </button>
          )}
        </div>
      )}
      {session && (
        <p data-testid="ider-progress">
          Serving: <strong>{formatBytes(served)}</strong> sent to the machine{image ? ` (the image holds ${formatBytes(image.sizeBytes)}; a machine may read parts more than once)` : ''}. You may close
          this page: the gateway keeps serving.
        </p>
      )}
    </section>
  );
}
