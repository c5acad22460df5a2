/**
 * The gateway's own read in the read floor's pool (read-floor-host.ts): workers/tasks/interrogate.ts
 * with a credential, as the device gate runs it, but without the gateway around it (no probing, no
 * gate, no store, no scan): the step between the design floor and the whole gateway.
 */
import { setMaxListeners } from 'node:events';
import interrogate from '../../workers/tasks/interrogate.js';
import type { FloorReadInput } from './read-floor-task.js';

export default async function readGatewayTask(input: FloorReadInput): Promise<boolean> {
  // A signal per task, without a listener limit, as the gateway's worker entry gives each task.
  const { signal } = new AbortController();
  setMaxListeners(0, signal);
  const tools = { progress: () => undefined, cancelled: () => false, signal };
  const out = await interrogate({ address: input.address, ports: { http: 16992, https: 16993 }, tls: false, credential: { id: 'bench', username: 'admin', password: input.password }, readUuid: true }, tools);
  return out.authStatus === 'ok' && out.hostname !== null && out.uuid !== null;
}
