/**
 * The agent as a way into its firmware for the gateway's HTTP client: each connection is one HTTP
 * exchange relayed through the agent (rpc-go opens a fresh connection to the firmware's local
 * management port for every request and closes it after the answer), so the stream takes one whole
 * request, sends it as a `wsman` message, and gives back the `response` bytes followed by the end.
 */
import { Duplex } from 'node:stream';
import type { DeviceChannel } from 'amt-gateway/devices';
import type { AgentSession } from './agent-session.js';

/** A request larger than this is no WS-Management request of ours. */
const MAX_REQUEST_BYTES = 1024 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');
const LAST_CHUNK = Buffer.from('0\r\n\r\n');

/** The length of a complete HTTP request at the start of `bytes`, or 0 while it is incomplete. */
export function completeRequestLength(bytes: Buffer): number {
  const headEnd = bytes.indexOf(HEAD_END);
  if (headEnd < 0) return 0;
  const head = bytes.subarray(0, headEnd).toString('latin1');
  const bodyStart = headEnd + HEAD_END.length;
  if (/\r\ntransfer-encoding:[^\r\n]*chunked/i.test(head)) {
    const end = bytes.indexOf(LAST_CHUNK, bodyStart);
    return end < 0 ? 0 : end + LAST_CHUNK.length;
  }
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  const total = bodyStart + (length ? Number(length[1]) : 0);
  return bytes.length >= total ? total : 0;
}

/** One relayed exchange, as a socket. */
class RelayConnection extends Duplex {
  readonly #session: AgentSession;
  readonly #cancel = new AbortController();
  #chunks: Buffer[] = [];
  #size = 0;
  #sent = false;

  constructor(session: AgentSession) {
    super();
    this.#session = session;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.#sent) return callback(new Error('one request per relayed connection'));
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    if (this.#size > MAX_REQUEST_BYTES) return callback(new Error('request too large to relay'));
    const request = Buffer.concat(this.#chunks, this.#size);
    this.#chunks = [request];
    const length = completeRequestLength(request);
    if (length > 0) {
      this.#sent = true;
      this.#session.exchange(request.subarray(0, length), this.#cancel.signal).then(
        (answer) => {
          this.push(answer);
          this.push(null);
        },
        (error: Error) => this.destroy(error),
      );
    }
    callback();
  }

  override _read(): void {}

  override _destroy(error: Error | null, callback: (error: Error | null) => void): void {
    this.#cancel.abort(error ?? new Error('relayed connection closed'));
    callback(error);
  }
}

/**
 * The session as a device channel; `key` names the firmware for the Digest nonce cache, so that the
 * operations of one activation share the device's nonce (one challenge per activation).
 */
export function agentChannel(session: AgentSession): DeviceChannel & { readonly oneRequestPerConnection: true } {
  return {
    key: `activation:${session.id}`,
    oneRequestPerConnection: true,
    connect: async () => {
      if (session.closed) throw Object.assign(new Error('the agent closed its connection'), { code: 'GW_ERR_ACTIVATION_AGENT_GONE' });
      return new RelayConnection(session);
    },
  };
}
