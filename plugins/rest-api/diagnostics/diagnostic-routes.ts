import { isHttpError, type PluginContext } from '../../../core/plugin-api.js';
import type { TaskCredential, WsmanCheckInput, WsmanCheckOutput } from '../../../workers/tasks/task-types.js';
import type { RestApiConfig } from '../config.js';
import type { ManagedCredentialVault } from '../credentials/credential-vault.js';
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
export function registerDiagnosticRoutes(ctx: PluginContext<RestApiConfig>, vault: ManagedCredentialVault, devices: ManagedDeviceRegistry): void {
  ctx.openapi.addTag('diagnostics', 'Credential and WS-Management checks against one device');
  const { amt } = ctx.site;
  const check = (address: string, credential: TaskCredential | null) => {
    const input: WsmanCheckInput = {
      address,
      ports: amt.ports,
      credential,
      timeouts: { connectMs: ctx.config.scan.defaultTimeoutMs, firstByteMs: ctx.config.scan.requestTimeoutMs, totalMs: ctx.config.scan.requestTimeoutMs },
      tlsTrust: ctx.site.deviceTls,
      pinnedFingerprint: devices.findByAddress(address)?.tlsFingerprint ?? null,
    };
    return ctx.pool.run('wsman-check', input);
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
      properties: { id: { type: 'string', minLength: 1, description: 'Credential id (default: the default credential)' }, ip: { type: 'string', minLength: 1, maxLength: 15, description: 'Device address' } },
    },
    responses: {
      200: { description: 'The result', schema: TEST_CREDENTIAL_RESULT_SCHEMA },
      404: { description: 'Unknown credential' },
      409: { description: 'No credential or no default credential' },
      422: { description: 'Address outside the allowed networks' },
    },
    async handler(req) {
      const { id, ip } = req.query;
      const address = ip === undefined ? undefined : checkSingleAddress(ip, amt.allowedNetworks);
      const credential = pick(id);
      const base = { credentialId: credential.id, username: credential.username };
      let unsealed: TaskCredential;
      try {
        unsealed = await vault.unseal(credential.id);
      } catch (err) {
        return { ...base, unsealed: false, error: isHttpError(err) && err.expose ? err.message : 'the stored password cannot be unsealed' };
      }
      if (address === undefined) return { ...base, unsealed: true };
      const result = await check(address, unsealed);
      const status = statusOf(result);
      return { ...base, unsealed: true, device: { ipAddress: address, authenticated: result.authenticated, status, ...(result.error && status !== 'ok' ? { error: result.error.message } : {}) } };
    },
  });

  ctx.http.route<{ Params: { ip_address: string }; Querystring: { credentialId?: string } }>({
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
    async handler(req) {
      const address = checkSingleAddress(req.params.ip_address, amt.allowedNetworks);
      const { credentialId } = req.query;
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
