/**
 * `deviceGate.openSession`: a redirection session (SOL, KVM, IDER) opened and signed in through one
 * pass of the gate, in the device's turn: its path (the redirection port, or a channel of its
 * tunnel), sign-in memory, credential order and pin, as every operation. The connection is opened on
 * this thread, since the relay that follows lives here; the credential never leaves the gate.
 */
import { openRedirectionSession } from '../../../workers/amt/redirection/redirection-session.js';
import { SlabReads } from '../../../workers/amt/redirection/slab-reads.js';
import type { DeviceGate } from '../api.js';
import type { DeviceGateCore } from './device-gate.js';
import { RUN_DEFAULTS, timeoutsOf } from './gate-run.js';

export function createDeviceSessions(gate: DeviceGateCore): DeviceGate['openSession'] {
  return async (device, request, options) => {
    const { value } = await gate.pass(
      { address: device.ipAddress, device },
      ({ target, credential }) => openRedirectionSession(target, credential, request.mode, request.begin, undefined, request.slabReads ? new SlabReads() : undefined),
      {
        service: 'redirection',
        // The session opens its channel itself, later: a path opens none ahead.
        purpose: 'session',
        timeouts: timeoutsOf(options),
        credentialAttempts: options?.credentialAttempts ?? RUN_DEFAULTS.credentialAttempts,
        ...(options?.via ? { via: options.via } : {}),
      },
    );
    return value.session;
  };
}
