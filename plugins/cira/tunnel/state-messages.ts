/**
 * Which APF message types a tunnel accepts in each state, decided from a message's first byte, so
 * that a message the state refuses is refused before its body is waited for or buffered.
 */
import { ApfType } from '../apf/apf-protocol.js';
import type { TunnelState } from './apf-tunnel.js';

const KEEPALIVE = [ApfType.KEEPALIVE_REQUEST, ApfType.KEEPALIVE_REPLY];
const SESSION = [
  ApfType.GLOBAL_REQUEST,
  ...KEEPALIVE,
  ApfType.KEEPALIVE_OPTIONS_REPLY,
  ApfType.CHANNEL_OPEN,
  ApfType.CHANNEL_OPEN_CONFIRMATION,
  ApfType.CHANNEL_OPEN_FAILURE,
  ApfType.CHANNEL_WINDOW_ADJUST,
  ApfType.CHANNEL_DATA,
  ApfType.CHANNEL_CLOSE,
];

const ACCEPTED: Record<TunnelState, ReadonlySet<number>> = {
  version: new Set([ApfType.PROTOCOLVERSION]),
  'auth-service': new Set([ApfType.SERVICE_REQUEST]),
  auth: new Set([ApfType.USERAUTH_REQUEST]),
  // Nothing is parsed while a password is being checked: what follows waits, bounded (apf-tunnel.ts).
  checking: new Set(),
  'pfwd-service': new Set([ApfType.SERVICE_REQUEST, ...KEEPALIVE]),
  forwarding: new Set(SESSION),
  settled: new Set(SESSION),
};

/** True when a message of `type` may come in `state` (DISCONNECT always may). */
export const acceptsMessageType = (state: TunnelState, type: number): boolean => type === ApfType.DISCONNECT || ACCEPTED[state].has(type);
