/**
 * `deviceGate.runAlong`: an operation of a plugin that brings both the path and the credential, for
 * a path whose channel lives on this thread (the activation plugin's agent: the firmware's local port
 * through the agent's WebSocket). One pass of the gate along that path (the device's turn, its one
 * sign-in memory, a proven route only); the operation runs here, on one connection, and gets the
 * signed-in WS-Management client, never a credential. The credential is the caller's own (an agent's
 * local account, a password it set or was given and checked with `credentials.passwordMatches`), or a
 * stored one named by id, which the gate unseals: the vault's stay in the gate.
 */
import { HttpError } from '../../../core/plugin-api.js';
import type { DeviceGate } from '../api.js';
import type { DeviceGateCore } from './device-gate.js';
import { RUN_DEFAULTS, timeoutsOf } from './gate-run.js';

const notLocal = (kind: string) =>
  new HttpError(500, 'GW_ERR_DEVICE_PATH_NOT_LOCAL', `path '${kind}' offers no channel on this thread: an operation of its own runs only along such a path (device I/O elsewhere is a device task, run by name)`);

export function createGateAlong(gate: DeviceGateCore): DeviceGate['runAlong'] {
  return async (subject, via, credential, operation, options) => {
    const { value } = await gate.pass(
      subject,
      async ({ target, credential: signing }, _tasks, path) => {
        if (!target.channel) throw notLocal(path.kind);
        // Loaded on first use: the transport loads undici, which a start does not need.
        const { runDeviceOperation } = await import('../../../workers/amt/device-operation.js');
        return runDeviceOperation(target, signing, undefined, async (client) => ({ result: await operation(client) }));
      },
      { via, ...('stored' in credential ? { credentialId: credential.stored } : { credential: { ...credential } }), credentialAttempts: 1, timeouts: options?.timeouts ?? timeoutsOf({ ...RUN_DEFAULTS }) },
    );
    return value.result as Awaited<ReturnType<typeof operation>>;
  };
}
