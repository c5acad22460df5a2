/** The KVM viewer: noVNC draws the device's screen and sends keyboard and mouse; Ctrl+Alt+Del; scaling. */
import RFB from '@novnc/novnc';
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorText } from '../api.js';
import { Message } from '../components/field.js';
import { closeText, openSessionSocket } from './session-socket.js';

export function KvmViewer({ deviceId, onClose }: { deviceId: string; onClose: (why: string) => void }) {
  const screen = useRef<HTMLDivElement>(null);
  const rfb = useRef<RFB | null>(null);
  const [state, setState] = useState<'connecting' | 'connected'>('connecting');
  const [scaled, setScaled] = useState(true);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let ended = false;
    let ws: WebSocket | null = null;
    openSessionSocket(deviceId, 'kvm').then(
      (socket) => {
        ws = socket;
        if (ended || !screen.current) return socket.close();
        const viewer = new RFB(screen.current, socket);
        viewer.scaleViewport = true;
        viewer.addEventListener('connect', () => setState('connected'));
        socket.addEventListener('close', (event) => {
          if (!ended) onClose(closeText(event));
        });
        rfb.current = viewer;
      },
      (err) => setError(errorText(err)),
    );
    return () => {
      ended = true;
      rfb.current?.disconnect();
      ws?.close();
    };
  }, [deviceId]);

  const toggleScale = () => {
    if (rfb.current) rfb.current.scaleViewport = !scaled;
    setScaled(!scaled);
  };

  return (
    <div class="remote-viewer">
      {error && <Message kind="error">{error}</Message>}
      <div class="actions" role="group" aria-label="Remote desktop controls">
        <span data-testid="kvm-state">{state === 'connected' ? 'Connected' : 'Connecting…'}</span>
        <button type="button" disabled={state !== 'connected'} onClick={() => rfb.current?.sendCtrlAltDel()}>
          Ctrl+Alt+Del
        </button>
        <button type="button" onClick={toggleScale}>
          {scaled ? 'Actual size' : 'Fit to window'}
        </button>
        <button type="button" onClick={() => onClose('session closed')}>
          Disconnect
        </button>
      </div>
      <div class="kvm-screen" ref={screen} data-testid="kvm-screen" />
    </div>
  );
}
