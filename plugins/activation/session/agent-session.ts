/**
 * One agent's WebSocket: its first message, then the requests the server relays through it to the
 * firmware (`wsman` out, `response` back: one at a time, the protocol has no request ids),
 * heartbeats while the server waits, progress lines, and the closing `success` or `error`.
 */
import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { Logger } from '../../../core/plugin-api.js';
import { ActivationErrors } from '../errors.js';
import { parseAgentMessage, payloadBytes, serverMessage, type RpsEnvelope } from '../wire/rps-message.js';

export interface AgentSessionOptions {
  helloTimeoutMs: number;
  stepTimeoutMs: number;
  heartbeatSeconds: number;
  logger: Logger;
}

/**
 * After a request was abandoned (timed out, cancelled) its answer may still come; rpc-go gives its
 * firmware 1.5 s to start answering and 1 s between pieces, so a request sent later waits this long
 * first, and nothing that arrives meanwhile is taken for the next request's answer.
 */
export const LATE_ANSWER_GRACE_MS = 3_000;

interface Pending {
  resolve(bytes: Buffer): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** What a session relayed, for records and benchmarks. */
export interface SessionCounters {
  exchanges: number;
  bytesToAgent: number;
  bytesFromAgent: number;
}

export class AgentSession {
  readonly id = randomUUID();
  readonly counters: SessionCounters = { exchanges: 0, bytesToAgent: 0, bytesFromAgent: 0 };
  readonly #ws: WebSocket;
  readonly #options: AgentSessionOptions;
  #hello: { resolve(e: RpsEnvelope): void; reject(e: Error): void } | null = null;
  readonly #helloPromise: Promise<RpsEnvelope>;
  #pending: Pending | null = null;
  #abandonedAt = 0;
  #closed = false;
  /** Why the last relayed request failed (a timeout, the agent gone), for the problem an operation ends with. */
  lastFailure: Error | null = null;
  readonly #closeListeners: Array<() => void> = [];

  constructor(
    ws: WebSocket,
    readonly remoteAddress: string,
    options: AgentSessionOptions,
  ) {
    this.#ws = ws;
    this.#options = options;
    this.#helloPromise = new Promise<RpsEnvelope>((resolve, reject) => (this.#hello = { resolve, reject }));
    this.#helloPromise.catch(() => undefined);
    const helloTimer = setTimeout(() => this.#failHello(ActivationErrors.agentTimeout('with its first message', options.helloTimeoutMs)), options.helloTimeoutMs);
    this.#helloPromise.finally(() => clearTimeout(helloTimer)).catch(() => undefined);
    ws.on('message', (data, isBinary) => this.#onMessage(data as Buffer, isBinary));
    ws.on('close', () => this.#onClose());
    ws.on('error', () => undefined);
  }

  /** The agent's first message. */
  hello(): Promise<RpsEnvelope> {
    return this.#helloPromise;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Runs once when the agent's connection ends (at once when it has). */
  onClose(listener: () => void): void {
    if (this.#closed) listener();
    else this.#closeListeners.push(listener);
  }

  /**
   * Relays one HTTP request to the firmware and resolves with the firmware's whole HTTP answer.
   * @throws `GW_ERR_ACTIVATION_AGENT_TIMEOUT`, `..._AGENT_GONE`, or `signal`'s reason
   */
  async exchange(request: Buffer, signal?: AbortSignal): Promise<Buffer> {
    if (this.#closed) throw ActivationErrors.agentGone();
    if (this.#pending) throw ActivationErrors.agentProtocol('a second request while one is in flight');
    const sinceAbandoned = Date.now() - this.#abandonedAt;
    if (sinceAbandoned < LATE_ANSWER_GRACE_MS) await new Promise((resolve) => setTimeout(resolve, LATE_ANSWER_GRACE_MS - sinceAbandoned));
    signal?.throwIfAborted();
    if (this.#closed) throw ActivationErrors.agentGone();
    const { stepTimeoutMs } = this.#options;
    const answer = new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => this.#abandon(ActivationErrors.agentTimeout('a relayed request', stepTimeoutMs)), stepTimeoutMs);
      this.#pending = { resolve, reject, timer };
    });
    const onAbort = () => this.#abandon(signal!.reason instanceof Error ? signal!.reason : new Error('cancelled'));
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      this.counters.exchanges++;
      this.counters.bytesToAgent += request.length;
      this.#send(serverMessage('wsman', 'ok', { payload: request }));
      return await answer;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** A progress line for the agent to print (rpc-go 2.x logs it). */
  progress(text: string): void {
    this.#send(serverMessage('progress', 'ok', { message: text }));
  }

  /** Sends heartbeat requests every `heartbeatSeconds` while `work` runs (an approval wait, a firmware transition). */
  async whileWaiting<T>(work: () => Promise<T>): Promise<T> {
    const timer = setInterval(() => this.#send(serverMessage('heartbeat_request', 'heartbeat')), this.#options.heartbeatSeconds * 1000);
    try {
      return await work();
    } finally {
      clearInterval(timer);
    }
  }

  /** Ends the session with RPS's `success` or `error` message (`message` is JSON status, or text), then closes. */
  finish(outcome: 'success' | 'error', message: string): void {
    if (this.#closed) return;
    this.#send(outcome === 'success' ? serverMessage('success', 'success', { message }) : serverMessage('error', 'failed', { message }));
    this.#ws.close(1000);
  }

  /** Drops the connection without a word (a peer that broke the protocol). */
  drop(): void {
    if (this.#closed) return;
    this.#ws.terminate();
  }

  #send(text: string): void {
    if (this.#closed || this.#ws.readyState !== this.#ws.OPEN) return;
    this.#ws.send(text);
  }

  #failHello(error: Error): void {
    const hello = this.#hello;
    this.#hello = null;
    hello?.reject(error);
  }

  #abandon(error: Error): void {
    const pending = this.#pending;
    if (!pending) return;
    this.#pending = null;
    this.#abandonedAt = Date.now();
    this.lastFailure = error;
    clearTimeout(pending.timer);
    pending.reject(error);
  }

  #onMessage(data: Buffer, isBinary: boolean): void {
    try {
      if (isBinary) throw ActivationErrors.badMessage('a binary message');
      this.counters.bytesFromAgent += data.length;
      const envelope = parseAgentMessage(data.toString('utf8'));
      if (this.#hello) {
        const hello = this.#hello;
        this.#hello = null;
        hello.resolve(envelope);
        return;
      }
      if (envelope.method === 'heartbeat_response') return;
      if (envelope.method !== 'response') throw ActivationErrors.agentProtocol(`unexpected method '${envelope.method.slice(0, 32)}'`);
      const pending = this.#pending;
      if (!pending) {
        // The late answer to a request given up on: dropped, and said so.
        if (Date.now() - this.#abandonedAt < LATE_ANSWER_GRACE_MS) return;
        throw ActivationErrors.agentProtocol('an answer to no request');
      }
      this.#pending = null;
      clearTimeout(pending.timer);
      pending.resolve(payloadBytes(envelope));
    } catch (error) {
      const problem = error instanceof Error ? error : new Error(String(error));
      this.#options.logger.warn('activation agent broke the protocol; connection closed', { session: this.id, remoteAddress: this.remoteAddress, error: problem.message });
      this.#failHello(problem);
      this.#abandon(problem);
      this.finish('error', problem.message);
    }
  }

  #onClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#failHello(ActivationErrors.agentGone());
    this.#abandon(ActivationErrors.agentGone());
    for (const listener of this.#closeListeners.splice(0)) listener();
  }
}
