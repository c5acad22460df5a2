/** The serial console: xterm.js shows the device's serial output and sends what is typed. */
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorText } from '../api.js';
import { Message } from '../components/field.js';
import { closeText, openSessionSocket } from './session-socket.js';

export function SolViewer({ deviceId, onClose }: { deviceId: string; onClose: (why: string) => void }) {
  const host = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let ended = false;
    let ws: WebSocket | null = null;
    const term = new Terminal({ convertEol: false, cursorBlink: true, rows: 25, cols: 80 });
    if (host.current) term.open(host.current);
    const encoder = new TextEncoder();
    openSessionSocket(deviceId, 'sol').then(
      (socket) => {
        ws = socket;
        if (ended) return socket.close();
        socket.addEventListener('message', (event) => term.write(new Uint8Array(event.data as ArrayBuffer)));
        socket.addEventListener('close', (event) => {
          if (!ended) onClose(closeText(event));
        });
        term.onData((data) => {
          if (socket.readyState === WebSocket.OPEN) socket.send(encoder.encode(data));
        });
        term.focus();
      },
      (err) => setError(errorText(err)),
    );
    return () => {
      ended = true;
      ws?.close();
      term.dispose();
    };
  }, [deviceId]);

  return (
    <div class="remote-viewer">
      {error && <Message kind="error">{error}</Message>}
      <div class="actions">
        <button type="button" onClick={() => onClose('session closed')}>
          Disconnect
        </button>
      </div>
      <div class="sol-terminal" ref={host} data-testid="sol-terminal" />
    </div>
  );
}
