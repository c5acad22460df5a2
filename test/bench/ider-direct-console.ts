/**
 * A child process of `npm run bench -- ider`: the simulator's own IDE-R console serving an image to
 * a device directly, in a process of its own as a console on the operator's machine is (the device
 * runs in the benchmark's process; so does nothing else of this way). Signs in with the gateway's
 * client library, serves until the parent sends `stop` (or the device closes), then exits.
 *   argv: <address> <password> <image path> <piece bytes>
 */
import { openRedirectionSession } from '../../workers/amt/redirection/redirection-session.js';
import { serveImageDirectly } from '../sim/redirection/ider/sim-ider-console.js';

const [address, password, path, piece] = process.argv.slice(2) as [string, string, string, string];
const outcome = await openRedirectionSession({ address, port: 16994, tls: false }, { id: 'bench', username: 'admin', password }, 'ider', async () => undefined);
if (!outcome.ok) {
  process.send?.({ error: outcome.error.code });
  process.exit(1);
}
const { stream, leftover } = outcome.session;
process.on('message', (message) => {
  if (message === 'stop') stream.destroy();
});
process.send?.({ open: true });
await serveImageDirectly(stream, leftover, path, { pieceBytes: Number(piece) });
process.disconnect?.();
