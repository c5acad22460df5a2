import { isHttpError, type PluginContext } from '../../../core/plugin-api.js';
import type { TaskCredential, WsmanCheckInput, WsmanCheckOutput } from '../../../workers/tasks/task-types.js';
import type { RestApiConfig } from '../config.js';
import type { ManagedCredentialVault } from '../credentials/credential-vault.js';
import type { AuthStatus, Device, DeviceRoute, DeviceRouter } from '../api.js';
import { FAILURES_PER_CREDENTIAL, tasksFor } from '../devices/device-access.js';
import type { NetworkGuard } from '../devices/device-networks.js';
import type { ManagedDeviceRegistry } from '../devices/device-registry.js';
import { RestApiErrors } from '../errors.js';
import { noteLegacyTls } from '../devices/legacy-tls-notice.js';
import { checkSingleAddress } from '../scans/scan-range.js';
import type { SignInMemory } from '../sign-in/sign-in-memory.js';
import { memoryKey } from '../sign-in/sign-in-key.js';
import { TEST_CREDENTIAL_RESULT_SCHEMA, TEST_WSMAN_RESULT_SCHEMA } from './diagnostic-schemas.js';
import { deviceOfTarget } from './diagnostic-target.js';

/** A check whose credential the sign-in memory held back: why, and the status it gives. */
interface HeldBack {
  status: AuthStatus;
  message: string;
}

/** Where a check goes: the device's address, the device if known, the route into its tunnel if any, the sign-in memory it counts against. */
interface CheckTarget {
  address: string;
  device: Readonly<Device> | undefined;
  route: DeviceRoute | null;
  signInKey: string;
}

function statusOf(result: WsmanCheckOutput, heldBack: HeldBack | null): AuthStatus {
  if (result.authenticated) return 'ok';
  if (!result.reachable) return 'unreachable';
  if (heldBack) return heldBack.status;
  if (result.error?.code === 'AMT_ERR_LOCKED_OUT') return 'locked-out-risk';
  return result.error?.code === 'AMT_ERR_UNAUTHORIZED' ? 'unauthorized' : 'error';
}

/** `GET /api/test/test-credential` and `GET /api/test/test-wsman/{ip_address}` (fixed paths). */
export function registerDiagnosticRoutes(
  ctx: PluginContext<RestApiConfig>,
  vault: ManagedCredentialVault,
  devices: ManagedDeviceRegistry,
  signIn: SignInMemory,
  networks: NetworkGuard,
  router: () => DeviceRouter | null,
): void {
  ctx.openapi.addTag('diagnostics', 'Credential and WS-Management checks against one device');
  const { amt } = ctx.site;
  /**
   * Where a check of `text` (an address, a device id or a device UUID) goes: a known device that the
   * router (its CIRA tunnel) reaches another way is checked through it, and then no socket goes to
   * its address, so allowedNetworks (which bounds local-network I/O) does not apply; any other
   * address must be inside them.
   */
  const targetOf = async (text: string, path: string): Promise<CheckTarget> => {
    const device = deviceOfTarget(devices, text, path);
    const route = device ? ((await router()?.(device)) ?? null) : null;
    if (route && device) return { address: device.ipAddress, device, route, signInKey: memoryKey(signIn, device, device.ipAddress, true) };
    const address = checkSingleAddress(device?.ipAddress ?? text, networks);
    return { address, device, route: null, signInKey: memoryKey(signIn, device, address, false) };
  };
  /**
   * A check through the sign-in memory, like every other sign-in: a credential the device refused
   * earlier, or a device near its lockout, gets the unauthenticated check and the reason instead.
   */
  const signedCheck = async (target: CheckTarget, credential: TaskCredential | null): Promise<{ result: WsmanCheckOutput; heldBack: HeldBack | null }> => {
    if (!credential) return { result: await check(target, null), heldBack: null };
    const plan = await signIn.planWhenFree(target.signInKey, [credential.id], { preferred: null, maxAttempts: FAILURES_PER_CREDENTIAL });
    if (plan.credentialIds.length === 0) {
      await plan.settle({ refused: [], failedLogins: 0, succeeded: null, lockedOut: false });
      const heldBack: HeldBack = plan.pause
        ? { status: 'locked-out-risk', message: `not signed in: sign-ins to this device are paused to avoid locking its account: ${plan.pause.detail}` }
        : { status: 'unauthorized', message: 'not signed in: the device refused this credential earlier; change its password or reset the device\'s sign-in memory' };
      const result = await check(target, null);
      return { result: { ...result, error: { code: 'AMT_ERR_UNAUTHORIZED', message: heldBack.message } }, heldBack };
    }
    let result: WsmanCheckOutput | undefined;
    try {
      result = await check(target, { ...credential, maxFailedLogins: plan.maxFailures });
      return { result, heldBack: null };
    } finally {
      const code = result?.error?.code;
      await plan.settle({
        refused: code === 'AMT_ERR_UNAUTHORIZED' ? [credential.id] : [],
        failedLogins: result?.failedLogins ?? 0,
        succeeded: result?.authenticated || code === 'AMT_ERR_FAULT' ? credential.id : null,
        lockedOut: code === 'AMT_ERR_LOCKED_OUT',
      });
    }
  };
  const check = async ({ address, device, route }: CheckTarget, credential: TaskCredential | null) => {
    const channel = route && 'channel' in route ? route.channel : undefined;
    const input: WsmanCheckInput = {
      address: route && 'address' in route ? route.address : address,
      ports: route ? { ...amt.ports, http: route.tls ? 0 : route.port, https: route.tls ? route.port : 0 } : amt.ports,
      credential,
      timeouts: { connectMs: ctx.config.scan.defaultTimeoutMs, firstByteMs: ctx.config.scan.requestTimeoutMs, totalMs: ctx.config.scan.requestTimeoutMs },
      tlsTrust: ctx.site.deviceTls,
      pinnedFingerprint: device?.tlsFingerprint ?? null,
      ...(channel ? { channel } : {}),
    };
    const result = await tasksFor(ctx.pool, route).run('wsman-check', input);
    noteLegacyTls(ctx.logger, address, result.tlsProtocol);
    // Report the device's port, not the one of an address route (a relay).
    if (route && !channel && result.port !== null) result.port = route.tls ? amt.ports.https : amt.ports.http;
    return result;
  };
  const pick = (id: string | undefined) => {
    if (id !== undefined) {
      const credential = vault.get(id);
      if (!credential) throw RestApiErrors.credentialNotFound(id);
      return credential;
    }
    const list = vault.list();
    if (list.length === 0) throw RestApiErrors.noCredentials();
    const fallback = list.find((c) => c.isDefault);
    if (!fallback) throw RestApiErrors.noDefaultCredential();
    return fallback;
  };

  ctx.http.route<{ Querystring: { id?: string; ip?: string } }>({
    method: 'get',
    path: '/test/test-credential',
    summary: 'Check that a stored credential can be unsealed and, with ip, that it signs in to that device',
    tags: ['diagnostics'],
    permission: 'diagnostics:run',
    query: {
      type: 'object',
      properties: {
        id: { type: 'string', minLength: 1, description: 'Credential id (default: the default credential)' },
        ip: {
          type: 'string',
          minLength: 1,
          maxLength: 36,
          description: 'The device: its IPv4 address, device id or UUID. An address several devices share (CIRA devices behind one NAT) is 409 `GW_ERR_TARGET_AMBIGUOUS`: name the device by id or UUID.',
        },
      },
    },
    responses: {
      200: { description: 'The result', schema: TEST_CREDENTIAL_RESULT_SCHEMA },
      400: { description: 'Malformed address' },
      404: { description: 'Unknown credential, or no device with that UUID' },
      409: { description: 'No credential or no default credential; or `GW_ERR_TARGET_AMBIGUOUS`: several devices share the address (the problem lists their ids)' },
      422: { description: 'Address outside the allowed networks' },
    },
    async handler(req) {
      const { id, ip } = req.query;
      const target = ip === undefined ? undefined : await targetOf(ip, 'query.ip');
      const credential = pick(id);
      const base = { credentialId: credential.id, username: credential.username };
      let unsealed: TaskCredential;
      try {
        unsealed = await vault.unseal(credential.id);
      } catch (err) {
        return { ...base, unsealed: false, error: isHttpError(err) && err.expose ? err.message : 'the stored password cannot be unsealed' };
      }
      if (target === undefined) return { ...base, unsealed: true };
      const { address, device } = target;
      const { result, heldBack } = await signedCheck(target, unsealed);
      const status = statusOf(result, heldBack);
      return {
        ...base,
        unsealed: true,
        device: {
          ipAddress: address,
          ...(device ? { deviceId: device.id } : {}),
          authenticated: result.authenticated,
          status,
          ...(result.error && status !== 'ok' ? { error: result.error.message } : {}),
        },
      };
    },
  });

  ctx.http.route<{ Params: { ip_address: string }; Querystring: { credentialId?: string } }>({
    method: 'get',
    path: '/test/test-wsman/:ip_address',
    summary: 'One WS-Management exchange with a device: reachability, TLS, sign-in and the three scan items',
    description:
      'Signs in with `credentialId`, else with the default credential when one exists, else reads only what the device tells without credentials. ' +
      'The target is an IPv4 address, a device id or a device UUID; a device reached through its CIRA tunnel is checked through it. ' +
      'An address several known devices share (CIRA devices behind one NAT dial in from one address) is refused with 409 `GW_ERR_TARGET_AMBIGUOUS`, ' +
      'which lists their device ids: name the device by its id or UUID, which always selects exactly one.',
    tags: ['diagnostics'],
    permission: 'diagnostics:run',
    params: { ip_address: { description: 'The device: its IPv4 address, device id or UUID', schema: { type: 'string', maxLength: 36 } } },
    query: { type: 'object', properties: { credentialId: { type: 'string', minLength: 1 } } },
    responses: {
      200: { description: 'The result', schema: TEST_WSMAN_RESULT_SCHEMA },
      400: { description: 'Malformed address' },
      404: { description: 'Unknown credential, or no device with that UUID' },
      409: { description: '`GW_ERR_TARGET_AMBIGUOUS`: several devices share the address (the problem lists their ids); name one by device id or UUID' },
      422: { description: 'Address outside the allowed networks' },
    },
    async handler(req) {
      const target = await targetOf(req.params.ip_address, 'params.ip_address');
      const { address, device } = target;
      const { credentialId } = req.query;
      const chosen = credentialId !== undefined ? pick(credentialId) : vault.list().find((x) => x.isDefault);
      const credential = chosen ? await vault.unseal(chosen.id) : null;
      const { result } = await signedCheck(target, credential);
      return {
        ipAddress: address,
        ...(device ? { deviceId: device.id } : {}),
        reachable: result.reachable,
        port: result.port,
        tls: result.tls,
        authenticated: result.authenticated,
        firmwareVersion: result.firmwareVersion ?? result.serverVersion,
        provisioningState: result.provisioningState,
        hostname: result.hostname,
        elapsedMs: result.elapsedMs,
        ...(result.error ? { error: result.error.message } : {}),
      };
    },
  });
}
