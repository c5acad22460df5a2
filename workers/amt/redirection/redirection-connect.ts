/**
 * Opens the connection a redirection session runs on: TCP to the device's redirection port, TLS on
 * 16995 with the device's pin (the same trust rules as WS-Management), or an APF channel of its CIRA
 * tunnel with TLS inside when the port wants it. Bounded by the connect timeout.
 */
import { connect as netConnect } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { AmtError } from '../errors.js';
import { resolveTimeouts, validateTarget, type DeviceTarget } from '../device-target.js';
import { checkPin, peerFingerprint, tlsConnectOptions, type TlsTrust } from '../tls-pinning.js';
import type { SlabReads } from './slab-reads.js';

export interface RedirectionConnection {
  stream: Duplex;
  /** The `slabReads` asked for, when the stream is a plain TCP socket reading into them. */
  slabReads: SlabReads | null;
  /** The certificate's fingerprint (TLS only), for the main thread to pin on first contact. */
  tlsFingerprint: string | null;
  tlsProtocol: string | null;
}

function trustOf(target: DeviceTarget): TlsTrust {
  return {
    mode: target.tlsTrust?.mode === 'ca' ? 'ca' : 'tofu',
    ...(target.tlsTrust?.caPem ? { caPem: target.tlsTrust.caPem } : {}),
    ...(target.tlsTrust?.legacyTls === true ? { legacyTls: true } : {}),
    pinnedFingerprint: target.pinnedFingerprint ?? null,
  };
}

function labelOf(target: DeviceTarget): string {
  return target.channel ? target.channel.key : `${target.address}:${target.port}`;
}

/** Plain bytes to the port: a TCP connection (reading into `slabReads` if given) or a channel. */
async function openPlain(target: DeviceTarget, signal: AbortSignal, slabReads?: SlabReads): Promise<Duplex> {
  if (target.channel) return target.channel.connect(signal);
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: target.address, port: target.port, ...(slabReads ? { onread: slabReads.onread } : {}) });
    slabReads?.bind(socket);
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    const onAbort = () => fail(Object.assign(new Error('aborted'), { code: 'ETIMEDOUT' }));
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('error', fail);
    socket.once('connect', () => {
      signal.removeEventListener('abort', onAbort);
      socket.off('error', fail);
      socket.setNoDelay(true);
      resolve(socket);
    });
  });
}

function startTls(plain: Duplex, target: DeviceTarget, signal: AbortSignal): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ socket: plain as never, ...tlsConnectOptions(trustOf(target)) });
    const fail = (error: Error) => {
      socket.destroy();
      plain.destroy();
      reject(error);
    };
    const onAbort = () => fail(Object.assign(new Error('aborted'), { code: 'ETIMEDOUT' }));
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('error', fail);
    socket.once('secureConnect', () => {
      signal.removeEventListener('abort', onAbort);
      socket.off('error', fail);
      resolve(socket);
    });
  });
}

/**
 * `slabReads`: read a plain TCP connection into reused slabs (see slab-reads.ts); not used for TLS
 * (its layer reads the socket itself) or a tunnel channel.
 * @throws AmtError `AMT_ERR_CONNECT`, `AMT_ERR_TLS` or `AMT_ERR_TLS_PIN_MISMATCH`.
 */
export async function connectRedirection(target: DeviceTarget, cancel?: AbortSignal, slabReads?: SlabReads): Promise<RedirectionConnection> {
  validateTarget(target);
  const label = labelOf(target);
  const bound = AbortSignal.timeout(resolveTimeouts(target.timeouts).connectMs);
  const signal = cancel ? AbortSignal.any([cancel, bound]) : bound;
  const slabs = target.tls || target.channel ? null : (slabReads ?? null);
  let plain: Duplex;
  try {
    plain = await openPlain(target, signal, slabs ?? undefined);
  } catch (error) {
    const cause = (error as { code?: string }).code;
    throw new AmtError('AMT_ERR_CONNECT', `cannot connect to ${label}`, cause ? { cause } : {});
  }
  if (!target.tls) return { stream: plain, slabReads: slabs, tlsFingerprint: null, tlsProtocol: null };
  let socket: TLSSocket;
  try {
    socket = await startTls(plain, target, signal);
  } catch (error) {
    const cause = (error as { code?: string }).code;
    throw new AmtError('AMT_ERR_TLS', `TLS with ${label} failed`, cause ? { cause } : {});
  }
  const tlsFingerprint = peerFingerprint(socket);
  const mismatch = checkPin(trustOf(target), tlsFingerprint);
  if (mismatch) {
    socket.destroy();
    throw mismatch;
  }
  socket.setNoDelay?.(true);
  return { stream: socket, slabReads: null, tlsFingerprint, tlsProtocol: socket.getProtocol() ?? null };
}
