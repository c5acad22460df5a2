/**
 * The agent on a simulated machine, speaking RPS's protocol as rpc-go 2.x does (its internal/rps):
 * the first message built from what it read over HECI (`method` is the command line, `payload` the
 * facts as base64 JSON, protocol 4.0.0), then each `wsman` message's bytes sent to the firmware's
 * local management port on a fresh connection and whatever comes back before the connection ends
 * (or 1.5 s of silence before the first byte, 1 s after the last) answered as `response`; nothing is
 * sent when nothing came, as rpc-go does. Heartbeats answered; `success` or `error` ends it.
 */
import { connect } from 'node:net';
import { WebSocket } from 'ws';
import type { SimMachine } from './sim-machine.js';

export type AgentCommand =
  | { command: 'activate'; profile: string }
  | { command: 'deactivate'; force?: boolean }
  | { command: 'maintenance'; task: 'changepassword' | 'synctime' | 'synchostname' | 'syncip'; newPassword?: string };

export interface AgentRun {
  /** The gateway's endpoint, e.g. `ws://127.0.0.1:8080/activate`. */
  url: string;
  machine: SimMachine;
  /** The AMT password the operator types (an activated machine's; rpc-go sends it in the payload and on the command line). */
  password?: string;
  /** Local address the agent connects from (the machine's own by default). */
  localAddress?: string;
  /** Overrides of the first message (a misbehaving agent). */
  hello?: Record<string, unknown>;
  /**
   * How long the agent waits for the firmware's first byte before it gives a request up (rpc-go:
   * 1,500 ms). A benchmark on a loaded machine raises it, so that its own lag is not taken for the firmware's.
   */
  firstByteMs?: number;
}

export interface AgentResult {
  outcome: 'success' | 'error' | 'closed';
  /** The `message` of `success` or `error`. */
  message: string;
  /** `message` parsed, when it is JSON (RPS's status). */
  status: Record<string, unknown> | null;
  progress: string[];
  /** Requests relayed to the firmware, and the ones answered with nothing. */
  relayed: number;
  unanswered: number;
  heartbeats: number;
  /** The HTTP status of a refused upgrade. */
  refusedStatus?: number;
}

const FIRST_BYTE_MS = 1_500;
const IDLE_MS = 1_000;

/** What rpc-go's `setCommandMethod` writes into `method`. */
function methodLine(run: AgentRun & AgentCommand): string {
  switch (run.command) {
    case 'activate':
      return `activate --profile ${run.profile}`;
    case 'deactivate':
      return `deactivate --password ${run.password ?? ''}${run.force ? ' -f' : ''}`;
    case 'maintenance': {
      const task = run.task === 'changepassword' && run.newPassword ? `--changepassword ${run.newPassword}` : `--${run.task}`;
      return `maintenance -password ${run.password ?? ''} ${task}`;
    }
  }
}

function firstMessage(run: AgentRun & AgentCommand): string {
  const facts = run.machine.heci();
  const payload = {
    ver: facts.version,
    build: facts.build,
    sku: facts.sku,
    features: 'AMT Pro Corporate',
    uuid: facts.uuid,
    username: facts.localAccount.username,
    // rpc-go puts the typed AMT password here for an activated machine, the local account's otherwise.
    password: facts.currentMode === 0 ? facts.localAccount.password : (run.password ?? ''),
    currentMode: facts.currentMode,
    hostname: facts.hostname,
    fqdn: facts.dnsSuffix,
    client: 'RPC',
    certHashes: facts.certHashes,
    ipConfiguration: {},
    hostnameInfo: {},
    ...(facts.tlsEnforced ? { tlsEnforced: true } : {}),
    progressSupported: true,
  };
  return JSON.stringify({
    method: methodLine(run),
    apiKey: 'key',
    appVersion: 'sim',
    protocolVersion: '4.0.0',
    status: 'ok',
    message: 'ok',
    payload: Buffer.from(JSON.stringify(payload)).toString('base64'),
    tenantId: '',
    ...run.hello,
  });
}

/** One request to the firmware's local port, as rpc-go's LMS connection reads the answer. */
function relay(machine: SimMachine, request: Buffer, firstByteMs: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const socket = connect({ host: machine.address, port: machine.lmsPort });
    const chunks: Buffer[] = [];
    let timer = setTimeout(() => socket.destroy(), firstByteMs);
    const done = () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      clearTimeout(timer);
      timer = setTimeout(() => socket.destroy(), IDLE_MS);
    });
    socket.on('error', () => undefined);
    socket.once('close', done);
    socket.write(request);
  });
}

/** Runs one rpc-go command against the gateway and resolves when the gateway ends it. */
export function runAgent(run: AgentRun & AgentCommand): Promise<AgentResult> {
  const result: AgentResult = { outcome: 'closed', message: '', status: null, progress: [], relayed: 0, unanswered: 0, heartbeats: 0 };
  return new Promise((resolve) => {
    const ws = new WebSocket(run.url, { localAddress: run.localAddress ?? run.machine.address });
    let queue = Promise.resolve();
    const send = (method: string, payload: Buffer | string, extra: Record<string, unknown> = {}) =>
      ws.readyState === ws.OPEN &&
      ws.send(JSON.stringify({ method, apiKey: 'key', appVersion: 'sim', protocolVersion: '4.0.0', status: 'ok', message: 'ok', payload: typeof payload === 'string' ? payload : payload.toString('base64'), tenantId: '', ...extra }));
    ws.on('unexpected-response', (_req, res) => {
      result.refusedStatus = res.statusCode;
      res.resume();
      ws.terminate();
    });
    ws.on('open', () => ws.send(firstMessage(run)));
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { method: string; message: string; payload: string | null };
      switch (message.method) {
        case 'heartbeat_request':
          result.heartbeats++;
          send('heartbeat_response', '', { status: 'success' });
          return;
        case 'progress':
          result.progress.push(message.message);
          return;
        case 'success':
        case 'error':
          result.outcome = message.method;
          result.message = message.message;
          try {
            result.status = JSON.parse(message.message) as Record<string, unknown>;
          } catch {
            result.status = null;
          }
          ws.close();
          return;
        default:
          // rpc-go relays any other method's payload to the firmware; requests are answered in order.
          queue = queue.then(async () => {
            result.relayed++;
            const answer = await relay(run.machine, Buffer.from(message.payload ?? '', 'base64'), run.firstByteMs ?? FIRST_BYTE_MS);
            if (answer.length === 0) result.unanswered++;
            else send('response', answer);
          });
      }
    });
    ws.on('error', () => undefined);
    ws.once('close', () => resolve(result));
  });
}
