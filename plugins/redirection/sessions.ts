/**
 * The remote console sessions of this gateway: one per mode per device (a slot is held from the
 * moment a ticket is used until the session ends), at most `maxSessions` in all.
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
  shutdown: { code: 4005, text: 'the gateway is shutting down' },
  protocol: { code: 4006, text: 'the device broke the redirection protocol' },
} as const;
export type EndReason = keyof typeof END_REASONS;

export interface LiveSession {
  readonly id: string;
  readonly mode: RegistryMode;
  readonly deviceId: string;
  readonly user: string;
  readonly startedAt: string;
  readonly bytesToDevice: number;
  readonly bytesFromDevice: number;
  /** Ends the session; `by` is who ended it through the API (for its audit record). */
  end(reason: EndReason, by?: RequestActor): void;
}

export function createSessionRegistry(maxSessions: number) {
  const slots = new Map<string, LiveSession | 'opening'>();
  const byId = new Map<string, LiveSession>();
  const key = (deviceId: string, mode: RegistryMode) => `${deviceId}\0${mode}`;
  return {
    busy: (deviceId: string, mode: RegistryMode) => slots.has(key(deviceId, mode)),
    full: () => slots.size >= maxSessions,
    /** Holds the device's slot for `mode` while the session opens; null when taken. Returns the release. */
    reserve(deviceId: string, mode: RegistryMode): (() => void) | null {
      const k = key(deviceId, mode);
      if (slots.has(k)) return null;
      slots.set(k, 'opening');
      return () => void (slots.get(k) === 'opening' && slots.delete(k));
    },
    open(session: LiveSession): void {
      slots.set(key(session.deviceId, session.mode), session);
      byId.set(session.id, session);
    },
    closed(session: LiveSession): void {
      if (slots.get(key(session.deviceId, session.mode)) === session) slots.delete(key(session.deviceId, session.mode));
      byId.delete(session.id);
    },
    get: (id: string) => byId.get(id),
    list: (): LiveSession[] => [...byId.values()],
    forDevice: (deviceId: string): LiveSession[] => [...byId.values()].filter((s) => s.deviceId === deviceId),
  };
}

export type SessionRegistry = ReturnType<typeof createSessionRegistry>;
