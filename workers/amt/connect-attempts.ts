/**
 * TCP connect attempts with nothing else: did `host:port` accept, refuse, or fail? No bytes are
 * sent or read. A sweep makes hundreds of thousands of them, and a `net.Socket` is a whole duplex
 * stream (its states, its event emitter, an Error with a formatted message for every refusal) that
 * a connect probe never uses: on a /16 that machinery cost more CPU than the kernel's connects.
 *
 * So the attempts run on libuv's TCP handle itself, the one `net.Socket` wraps (`tcp_wrap`, reached
 * through `process.binding`, which Node documents as deprecated, DEP0111, warning only under
 * `--pending-deprecation`, and still serves): one handle and one connect request per attempt, their
 * outcome an errno, one callback shared by all. About half the CPU of a /16 sweep (BENCHMARKS.md,
 * "Probing engine cost"). Where that binding is missing or differs, the same interface runs on
 * `net.Socket` (see {@link socketConnector}).
 */
import { Socket } from 'node:net';
import { getSystemErrorName } from 'node:util';

/** One attempt in flight; `close()` releases its socket and silences its outcome. */
export interface ConnectAttempt {
  close(): void;
}

/**
 * Receives every attempt's outcome once: `error` undefined when the connection was accepted, else the
 * error's code (`ECONNREFUSED`, `ETIMEDOUT`, `EMFILE`, ...). Not called for an attempt already closed.
 */
export type ConnectOutcome<T> = (tag: T, error: string | undefined) => void;

export interface Connector<T> {
  /** Which implementation runs: libuv's TCP handles, or `net.Socket` where those are not reachable. */
  readonly kind: 'handle' | 'socket';
  /**
   * Starts a connect to `host` (an IPv4 or IPv6 literal) on `port`; `tag` comes back with its
   * outcome. An attempt that could not even start (no descriptor left) reports it like any other.
   */
  connect(host: string, port: number, tag: T): ConnectAttempt;
}

interface TcpHandle {
  connect(req: ConnectRequest, address: string, port: number): number;
  connect6(req: ConnectRequest, address: string, port: number): number;
  close(): void;
}
interface ConnectRequest {
  oncomplete: (status: number) => void;
  attempt?: HandleAttempt<unknown>;
}
interface TcpBinding {
  TCP: new (type: number) => TcpHandle;
  TCPConnectWrap: new () => ConnectRequest;
  constants: { SOCKET: number };
}

function tcpBinding(): TcpBinding | null {
  try {
    const binding = (process as unknown as { binding(name: string): Partial<TcpBinding> }).binding('tcp_wrap');
    const { TCP, TCPConnectWrap, constants } = binding;
    if (typeof TCP !== 'function' || typeof TCPConnectWrap !== 'function' || typeof constants?.SOCKET !== 'number') return null;
    const probe = new TCP(constants.SOCKET);
    const usable = typeof probe.connect === 'function' && typeof probe.connect6 === 'function' && typeof probe.close === 'function';
    probe.close();
    return usable ? (binding as TcpBinding) : null;
  } catch {
    return null;
  }
}

let cachedBinding: TcpBinding | null | undefined;

/** What both implementations keep per attempt; `release` frees the socket once. */
abstract class Attempt<T> implements ConnectAttempt {
  closed = false;
  constructor(
    readonly tag: T,
    readonly outcome: ConnectOutcome<T>,
  ) {}

  protected abstract release(): void;

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.release();
  }
}

/** A failure known before the connect began, told on the next tick as a socket would (unless closed by then). */
function reportEarlyFailure<T>(attempt: Attempt<T>, code: string): void {
  if (!attempt.closed) attempt.outcome(attempt.tag, code);
}

class HandleAttempt<T> extends Attempt<T> {
  constructor(
    readonly handle: TcpHandle,
    tag: T,
    outcome: ConnectOutcome<T>,
  ) {
    super(tag, outcome);
  }

  protected release(): void {
    this.handle.close();
  }
}

// One completion function for every request (libuv calls it with the request as `this`): no closure per attempt.
function afterConnect(this: ConnectRequest, status: number): void {
  const attempt = this.attempt;
  this.attempt = undefined;
  // A closed attempt's request completes with ECANCELED when its handle goes: that is no outcome.
  if (!attempt || attempt.closed) return;
  attempt.outcome(attempt.tag, status === 0 ? undefined : getSystemErrorName(status));
}

function handleConnector<T>(binding: TcpBinding, outcome: ConnectOutcome<T>): Connector<T> {
  const { TCP, TCPConnectWrap, constants } = binding;
  return {
    kind: 'handle',
    connect(host, port, tag) {
      const attempt = new HandleAttempt(new TCP(constants.SOCKET), tag, outcome);
      // The binding checks its arguments by aborting the process: a port it would refuse never reaches it.
      if (!Number.isInteger(port) || port < 0 || port > 65_535) {
        process.nextTick(reportEarlyFailure, attempt, 'EINVAL');
        return attempt;
      }
      const req = new TCPConnectWrap();
      req.oncomplete = afterConnect;
      req.attempt = attempt as HandleAttempt<unknown>;
      const status = host.includes(':') ? attempt.handle.connect6(req, host, port) : attempt.handle.connect(req, host, port);
      if (status !== 0) {
        // Refused before it began (EMFILE, EADDRNOTAVAIL, ...).
        req.attempt = undefined;
        process.nextTick(reportEarlyFailure, attempt, getSystemErrorName(status));
      }
      return attempt;
    },
  };
}

const ATTEMPT = Symbol('connect attempt');
type ProbeSocket = Socket & { [ATTEMPT]?: SocketAttempt<unknown> };

class SocketAttempt<T> extends Attempt<T> {
  constructor(
    readonly socket: ProbeSocket,
    tag: T,
    outcome: ConnectOutcome<T>,
  ) {
    super(tag, outcome);
  }

  protected release(): void {
    this.socket.destroy();
  }
}

function onSocketConnect(this: ProbeSocket): void {
  const attempt = this[ATTEMPT];
  if (attempt && !attempt.closed) attempt.outcome(attempt.tag, undefined);
}

function onSocketError(this: ProbeSocket, error: NodeJS.ErrnoException): void {
  const attempt = this[ATTEMPT];
  if (attempt && !attempt.closed) attempt.outcome(attempt.tag, error.code ?? 'EIO');
}

/** The same interface on `net.Socket`: the fallback, and what the tests hold the handles to. */
export function socketConnector<T>(outcome: ConnectOutcome<T>): Connector<T> {
  return {
    kind: 'socket',
    connect(host, port, tag) {
      const socket: ProbeSocket = new Socket();
      const attempt = new SocketAttempt(socket, tag, outcome);
      socket[ATTEMPT] = attempt as SocketAttempt<unknown>;
      socket.on('connect', onSocketConnect);
      socket.on('error', onSocketError);
      try {
        socket.connect({ host, port });
      } catch (error) {
        // net checks its arguments by throwing (a bad port): reported like a failed connect.
        process.nextTick(reportEarlyFailure, attempt, (error as NodeJS.ErrnoException).code ?? 'EINVAL');
      }
      return attempt;
    },
  };
}

/** A connector on libuv's TCP handles where this Node has them, else on `net.Socket`. */
export function createConnector<T>(outcome: ConnectOutcome<T>): Connector<T> {
  if (cachedBinding === undefined) cachedBinding = tcpBinding();
  return cachedBinding ? handleConnector(cachedBinding, outcome) : socketConnector(outcome);
}
