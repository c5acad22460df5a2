/**
 * The presence states as the routes, the `presence` service and the status feed read them: every
 * registered device tracked first (the scheduler tracks them on its first tick, after the gateway
 * serves, or on the first read before that).
 */
import type { PresenceStates } from './presence-states.js';

export function trackedStates(states: PresenceStates, ensureTracking: () => void): PresenceStates {
  return {
    get: (id) => (ensureTracking(), states.get(id)),
    has: (id) => (ensureTracking(), states.has(id)),
    get size() {
      ensureTracking();
      return states.size;
    },
    entries: () => (ensureTracking(), states.entries()),
    track: (device, initial) => (ensureTracking(), states.track(device, initial)),
    observe: (id, answered, at, port) => (ensureTracking(), states.observe(id, answered, at, port)),
    forget: (id) => (ensureTracking(), states.forget(id)),
    pruneUntracked: () => states.pruneUntracked(),
    flush: () => states.flush(),
  };
}
