import { HttpError, type PluginContext } from '../../../core/plugin-api.js';
import type { TaskCredential, WsmanCheckInput, WsmanCheckOutput } from '../../../workers/tasks/task-types.js';
import type { RestApiConfig } from '../config.js';
import type { ManagedCredentialVault } from '../credentials/credential-vault.js';
import type { DeviceRoute, DeviceRouter } from '../api.js';
import type { ManagedDeviceRegistry } from '../devices/device-registry.js';
import { RestApiErrors } from '../errors.js';
import { checkSingleAddress } from '../scans/scan-range.js';
import { TEST_CREDENTIAL_RESULT_SCHEMA, TEST_WSMAN_RESULT_SCHEMA } from './diagnostic-schemas.js';

type Status = 'ok' | 'unauthorized' | 'unreachable' | 'error';

function statusOf(result: WsmanCheckOutput): Status {
  if (result.authenticated) return 'ok';
  if (!result.reachable) return 'unreachable';
  return result.error?.code === 'AMT_ERR_UNAUTHORIZED' ? 'unauthorized' : 'error';
}

/** `GET /api/test/test-credential` and `GET /api/test/test-wsman/{ip_address}` (fixed paths). */
export function registerDiagnosticRoutes(ctx: PluginContext<RestApiConfig>, vault: ManagedCredentialVault, devices: ManagedDeviceRegistry, router: () => DeviceRouter | null): void {
  ctx.openapi.addTag('diagnostics', 'Credential and WS-Management checks against one device');
  const { amt } = ctx.site;
  /** A known device at this address that the router (its CIRA tunnel) reaches another way. */
  const routeOf = async (address: string): Promise<DeviceRoute | null> => {
    const device = devices.findByAddress(address);
    return device ? ((await router()?.(device)) ?? null) : null;
  };
  const check = async (address: string, credential: TaskCredential | null) => {
    const route = await routeOf(address);
    const input: WsmanCheckInput = {
      address: route ? route.address : address,
      ports: route ? { ...amt.ports, http: route.tls ? 0 : route.port, https: route.tls ? route.port : 0 } : amt.ports,
      credential,
      timeouts: { connectMs: ctx.config.scan.defaultTimeoutMs, firstByteMs: ctx.config.scan.requestTimeoutMs, totalMs: ctx.config.scan.requestTimeoutMs },
      tlsTrust: ctx.site.deviceTls,
      pinnedFingerprint: devices.findByAddress(address)?.tlsFingerprint ?? null,
    };
    const result = await ctx.pool.run('wsman-check', input);
    // Report the device's port, not the relay's.
    if (route && result.port !== null) result.port = route.tls ? amt.ports.https : amt.ports.http;
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

  ctx.http.route({
    method: 'get',
    path: '/test/test-credential',
    summary: 'Check that a stored credential can be unsealed and, with ip, that it signs in to that device',
    tags: ['diagnostics'],
    permission: 'diagnostics:run',
    query: {
      type: 'object',
      properties: { id: { type: 'string', minLength: 1, description: 'Credential id (default: the default credential)' }, ip: { type: 'string', minLength: 1, maxLength: 15, description: 'Device address' } },
    },
    responses: {
      200: { description: 'The result', schema: TEST_CREDENTIAL_RESULT_SCHEMA },
      404: { description: 'Unknown credential' },
      409: { description: 'No credential or no default credential' },
      422: { description: 'Address outside the allowed networks' },
    },
    async handler(c) {
      const { id, ip } = c.state.query as { id?: string; ip?: string };
      const address = ip === undefined ? undefined : checkSingleAddress(ip, amt.allowedNetworks);
      const credential = pick(id);
      const base = { credentialId: credential.id, username: credential.username };
      let unsealed: TaskCredential;
      try {
        unsealed = await vault.unseal(credential.id);
      } catch (err) {
        return { ...base, unsealed: false, error: err instanceof HttpError && err.expose ? err.message : 'the stored password cannot be unsealed' };
      }
      if (address === undefined) return { ...base, unsealed: true };
      const result = await check(address, unsealed);
      const status = statusOf(result);
      return { ...base, unsealed: true, device: { ipAddress: address, authenticated: result.authenticated, status, ...(result.error && status !== 'ok' ? { error: result.error.message } : {}) } };
    },
  });

  ctx.http.route({
    method: 'get',
    path: '/test/test-wsman/:ip_address',
    summary: 'One WS-Management exchange with a device: reachability, TLS, sign-in and the three scan items',
    description: 'Signs in with `credentialId`, else with the default credential when one exists, else reads only what the device tells without credentials.',
    tags: ['diagnostics'],
    permission: 'diagnostics:run',
    params: { ip_address: { description: 'IPv4 address of the device', schema: { type: 'string' } } },
    query: { type: 'object', properties: { credentialId: { type: 'string', minLength: 1 } } },
    responses: {
      200: { description: 'The result', schema: TEST_WSMAN_RESULT_SCHEMA },
      400: { description: 'Malformed address' },
      404: { description: 'Unknown credential' },
      422: { description: 'Address outside the allowed networks' },
    },
    async handler(c) {
      const address = checkSingleAddress(c.params.ip_address!, amt.allowedNetworks);
      const { credentialId } = c.state.query as { credentialId?: string };
      const chosen = credentialId !== undefined ? pick(credentialId) : vault.list().find((x) => x.isDefault);
      const credential = chosen ? await vault.unseal(chosen.id) : null;
      const result = await check(address, credential);
      return {
        ipAddress: address,
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
