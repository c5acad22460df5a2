/**
 * The remote console sessions of this gateway: one per mode per device (a slot is held from the
 * moment a ticket is used until the session ends), at most `maxSessions` in all, and per user
 * (sessions opening included), so that no user can take every slot: at most `maxPerUser` viewed
 * sessions (KVM, SOL) and `maxIderPerUser` IDE-R sessions, which are the gateway's own jobs (a row
 * of machines reinstalling from one image holds one each for the whole install).
 */
import type { RequestActor } from '../../core/plugin-api.js';
import type { SessionMode } from './device-state.js';

/** A slot's mode: the relayed modes and IDE redirection (served by the gateway itself). */
export type RegistryMode = SessionMode | 'ider';

/** Why a session ended, with the WebSocket close code and reason the viewer gets. */
export const END_REASONS = {
  viewer: { code: 1000, text: 'session closed' },
  device: { code: 4001, text: 'the device closed the session' },
  deviceIdleKvm: { code: 4001, text: 'the device closed the session (AMT ends KVM after about 3 minutes without keyboard or mouse input)' },
  idle: { code: 4002, text: 'session idle for too long' },
  deleted: { code: 4003, text: 'session ended by an operator' },
  forbidden: { code: 4004, text: 'the user was deleted or no longer holds remote:connect' },
  revoked: { code: 4007, text: 'the sign-in that opened the session was revoked (signed out, or the password changed)' },
  shutdown: { code: 4005, text: 'the gateway is shutting down' },
  protocol: { code: 4006, text: 'the device broke the redirection protocol' },
} as const;
export type EndReason = keyof typeof END_REASONS;

export interface LiveSession {
  readonly id: string;
  readonly mode: RegistryMode;
  readonly deviceId: string;
  /** The user's name, for lists and logs. */
  readonly user: string;
  /** The user's immutable id and the token that opened the session: revocations find sessions by them. */
  readonly userId: string;
  readonly tokenId: string;
  readonly startedAt: string;
  /** IDE-R: the image ids served as the CD-ROM and the floppy. */
  readonly media?: { readonly cd: string | null; readonly floppy: string | null };
  readonly bytesToDevice: number;
  readonly bytesFromDevice: number;
  /** Ends the session; `by` is who ended it through the API (for its audit record). */
  end(reason: EndReason, by?: RequestActor): void;
}

/** What else holds a device's mode (another instance of a cluster: cluster-sessions.ts). */
export type ElsewhereCheck = (deviceId: string, mode: RegistryMode) => boolean;

/** Which per-user bound a mode counts toward. */
const boundOf = (mode: RegistryMode): 'viewed' | 'ider' => (mode === 'ider' ? 'ider' : 'viewed');

export function createSessionRegistry(maxSessions: number, maxPerUser: number, maxIderPerUser: number) {
  const slots = new Map<string, LiveSession | { opening: string; mode: RegistryMode }>();
  const observers: Array<(change: 'open' | 'closed', session: LiveSession) => void> = [];
  let elsewhere: ElsewhereCheck = () => false;
  const byId = new Map<string, LiveSession>();
  const key = (deviceId: string, mode: RegistryMode) => `${deviceId}\0${mode}`;
  const heldBy = (userId: string, bound: 'viewed' | 'ider') => {
    let count = 0;
    for (const slot of slots.values()) if (('opening' in slot ? slot.opening : slot.userId) === userId && boundOf(slot.mode) === bound) count++;
    return count;
  };
  return {
    busy: (deviceId: string, mode: RegistryMode) => slots.has(key(deviceId, mode)) || elsewhere(deviceId, mode),
    /** Also counts a device's mode as busy when `check` says another holder has it. */
    consult(check: ElsewhereCheck): void {
      elsewhere = check;
    },
    /** Hears every session that opens and closes here. */
    observe(observer: (change: 'open' | 'closed', session: LiveSession) => void): void {
      observers.push(observer);
    },
    full: () => slots.size >= maxSessions,
    /** Whether the user holds its bound of sessions (open or opening) of the kind `mode` counts toward. */
    userFull: (userId: string, mode: RegistryMode) => heldBy(userId, boundOf(mode)) >= (boundOf(mode) === 'ider' ? maxIderPerUser : maxPerUser),
    /** Holds the device's slot for `mode` for the user while the session opens; null when taken. Returns the release. */
    reserve(deviceId: string, mode: RegistryMode, userId: string): (() => void) | null {
      const k = key(deviceId, mode);
      if (slots.has(k)) return null;
      const opening = { opening: userId, mode };
      slots.set(k, opening);
      return () => void (slots.get(k) === opening && slots.delete(k));
    },
    open(session: LiveSession): void {
      slots.set(key(session.deviceId, session.mode), session);
      byId.set(session.id, session);
      for (const observer of observers) observer('open', session);
    },
    closed(session: LiveSession): void {
      if (slots.get(key(session.deviceId, session.mode)) === session) slots.delete(key(session.deviceId, session.mode));
      if (byId.delete(session.id)) for (const observer of observers) observer('closed', session);
    },
    get: (id: string) => byId.get(id),
    list: (): LiveSession[] => [...byId.values()],
    forDevice: (deviceId: string): LiveSession[] => [...byId.values()].filter((s) => s.deviceId === deviceId),
    forUser: (userId: string): LiveSession[] => [...byId.values()].filter((s) => s.userId === userId),
  };
}

export type SessionRegistry = ReturnType<typeof createSessionRegistry>;
