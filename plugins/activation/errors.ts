/**
 * Error codes of the activation plugin, each with its HTTP status. The same problems end an agent's
 * action: their text goes to the agent as RPS's `error` message, so none names a secret.
 */
import { HttpError } from '../../core/plugin-api.js';

export const ActivationErrors = {
  // The agent's protocol.
  badMessage: (why: string) => new HttpError(400, 'GW_ERR_ACTIVATION_BAD_MESSAGE', `the agent's message is not what rpc-go sends: ${why}`),
  protocolVersion: (theirs: string, ours: string) =>
    new HttpError(400, 'GW_ERR_ACTIVATION_PROTOCOL_VERSION', `protocol version ${theirs || '(none)'} is not supported; this server speaks ${ours} (rpc-go 2.x)`),
  sourceRefused: (address: string) => new HttpError(403, 'GW_ERR_ACTIVATION_SOURCE_REFUSED', `agents may not connect from ${address} (plugins.activation.options.allowedNetworks)`),
  busy: (why: string) => new HttpError(503, 'GW_ERR_ACTIVATION_BUSY', `activation is at its bound: ${why}; try again later`, { headers: { 'Retry-After': '30' } }),
  agentTimeout: (what: string, ms: number) => new HttpError(504, 'GW_ERR_ACTIVATION_AGENT_TIMEOUT', `the agent did not answer ${what} within ${ms} ms`),
  agentGone: () => new HttpError(502, 'GW_ERR_ACTIVATION_AGENT_GONE', 'the agent closed its connection'),
  agentProtocol: (why: string) => new HttpError(502, 'GW_ERR_ACTIVATION_AGENT_PROTOCOL', `the agent broke the protocol: ${why}`),
  tlsEnforced: () =>
    new HttpError(422, 'GW_ERR_ACTIVATION_TLS_ENFORCED', 'the firmware accepts local management over TLS only (AMT 19+ TLS-enforced); this gateway relays plain local management only'),
  actionTimeout: (ms: number) => new HttpError(504, 'GW_ERR_ACTIVATION_TIMEOUT', `the action did not finish within ${ms} ms`),

  // What is asked.
  profileNotFound: (name: string) => new HttpError(404, 'GW_ERR_ACTIVATION_PROFILE_NOT_FOUND', `no activation profile '${name}'`),
  profileExists: (name: string) => new HttpError(409, 'GW_ERR_ACTIVATION_PROFILE_EXISTS', `an activation profile named '${name}' exists`),
  profileInvalid: (path: string, message: string) => new HttpError(400, 'GW_ERR_ACTIVATION_PROFILE_INVALID', `${path} ${message}`, { errors: [{ path, message }] }),
  domainNotFound: (id: string) => new HttpError(404, 'GW_ERR_ACTIVATION_DOMAIN_NOT_FOUND', `no provisioning domain '${id}'`),
  domainExists: (suffix: string) => new HttpError(409, 'GW_ERR_ACTIVATION_DOMAIN_EXISTS', `a provisioning certificate for '${suffix}' is stored`),
  certificateUnreadable: (why: string) => new HttpError(422, 'GW_ERR_ACTIVATION_CERTIFICATE_UNREADABLE', `the provisioning certificate cannot be used: ${why}`),
  recordNotFound: (id: string) => new HttpError(404, 'GW_ERR_ACTIVATION_RECORD_NOT_FOUND', `no activation record '${id}'`),
  noPendingApproval: (uuid: string) => new HttpError(404, 'GW_ERR_ACTIVATION_APPROVAL_NOT_FOUND', `no activation of ${uuid} waits for approval`),

  // The device's state.
  wrongState: (detail: string) => new HttpError(409, 'GW_ERR_ACTIVATION_DEVICE_STATE', detail),
  firmwareTooOld: (version: string) => new HttpError(422, 'GW_ERR_ACTIVATION_FIRMWARE', `AMT ${version} cannot be activated remotely (7.0 or later, build 3000 or later for 7 to 11.6)`),
  approvalRequired: (uuid: string, deviceId: string) =>
    new HttpError(409, 'GW_ERR_ACTIVATION_APPROVAL_REQUIRED', `UUID ${uuid} is managed device '${deviceId}'; an operator must approve (POST /api/activation/approvals/${uuid}) before it is activated again`),
  passwordMismatch: (uuid: string) => new HttpError(403, 'GW_ERR_ACTIVATION_PASSWORD', `the AMT password given does not match the one stored for ${uuid}`),
  proofLimit: (uuid: string, retryAfterSeconds: number) =>
    new HttpError(429, 'GW_ERR_ACTIVATION_PROOF_LIMIT', `too many failed password proofs for ${uuid} or from this address; nothing was compared; try again in ${retryAfterSeconds} s`, {
      headers: { 'Retry-After': String(retryAfterSeconds) },
    }),
  noStoredPassword: (uuid: string) => new HttpError(409, 'GW_ERR_ACTIVATION_NO_PASSWORD', `no AMT password of ${uuid} is stored here (activated elsewhere; deactivate it with rpc-go locally)`),
  noDomain: (suffix: string) => new HttpError(422, 'GW_ERR_ACTIVATION_NO_DOMAIN', `no provisioning certificate for DNS suffix '${suffix || '(none)'}' (admin control mode needs one)`),
  rootNotTrusted: (suffix: string) =>
    new HttpError(422, 'GW_ERR_ACTIVATION_ROOT_NOT_TRUSTED', `the root of the certificate for '${suffix}' is not among the roots the firmware trusts for provisioning`),
  modeNotAllowed: (mode: string) => new HttpError(422, 'GW_ERR_ACTIVATION_MODE_NOT_ALLOWED', `the firmware does not allow ${mode} activation now`),
  firmwareRefused: (call: string, returnValue: number | null) =>
    new HttpError(502, 'GW_ERR_ACTIVATION_FIRMWARE_REFUSED', `the firmware refused ${call} (ReturnValue ${returnValue ?? 'none'})`),
  ciraUnavailable: () => new HttpError(503, 'GW_ERR_ACTIVATION_CIRA_UNAVAILABLE', 'the profile connects over CIRA and the cira plugin is not enabled or not listening'),
  maintenanceUnsupported: (task: string) => new HttpError(422, 'GW_ERR_ACTIVATION_TASK_UNSUPPORTED', `maintenance task '${task}' is not supported by this gateway (changepassword, synctime, synchostname)`),
};
