import { HttpError, type PluginContext } from '../../../core/plugin-api.js';
import type { RestApiConfig } from '../config.js';
import { TEST_CREDENTIAL_QUERY, TEST_CREDENTIAL_RESULT_SCHEMA, TEST_WSMAN_QUERY, TEST_WSMAN_RESULT_SCHEMA, type CredentialTestResult, type WsmanTestResult } from './diagnostic-schemas.js';
import { createDiagnosticCheck } from './diagnostic-check.js';

const credentialNotFound = (id: string) => new HttpError(404, 'GW_ERR_CREDENTIAL_NOT_FOUND', `no credential '${id}'`);

/** `GET /api/test/test-credential` and `GET /api/test/test-wsman/{ip_address}` (fixed paths). */
export function registerDiagnosticRoutes(ctx: PluginContext<RestApiConfig>): void {
  ctx.openapi.addTag('diagnostics', 'Credential and WS-Management checks against one device');
  const vault = ctx.use('credentials');
  const check = createDiagnosticCheck(ctx, ctx.use('deviceGate'));
  const pick = (id: string | undefined) => {
    const list = vault.list();
    if (id !== undefined) {
      const credential = list.find((c) => c.id === id);
      if (!credential) throw credentialNotFound(id);
      return credential;
    }
    if (list.length === 0) throw new HttpError(409, 'GW_ERR_NO_CREDENTIALS', 'no credential is stored; create one first');
    const fallback = list.find((c) => c.isDefault);
    if (!fallback) throw new HttpError(409, 'GW_ERR_NO_DEFAULT_CREDENTIAL', 'no credential is marked as the default; pass id');
    return fallback;
  };

  ctx.http.route({
    method: 'get',
    path: '/test/test-credential',
    summary: 'Check that a stored credential can be unsealed and, with ip, that it signs in to that device',
    tags: ['diagnostics'],
    permission: 'diagnostics:run',
    query: TEST_CREDENTIAL_QUERY,
    responses: {
      200: { description: 'The result', schema: TEST_CREDENTIAL_RESULT_SCHEMA },
      400: { description: 'Malformed address' },
      404: { description: 'Unknown credential, or no device with that UUID' },
      409: { description: 'No credential or no default credential; or `GW_ERR_TARGET_AMBIGUOUS`: several devices share the address (the problem lists their ids)' },
      422: { description: 'Address outside the allowed networks' },
    },
    async handler(req): Promise<CredentialTestResult> {
      const { id, ip } = req.query;
      const credential = pick(id);
      const base = { credentialId: credential.id, username: credential.username };
      const sealed = await vault.checkSealed(credential.id);
      if (!sealed.unsealed) return { ...base, unsealed: false, error: sealed.reason };
      if (ip === undefined) return { ...base, unsealed: true };
      const { address, device, result, status } = await check(ip, 'query.ip', credential.id);
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

  ctx.http.route({
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
    query: TEST_WSMAN_QUERY,
    responses: {
      200: { description: 'The result', schema: TEST_WSMAN_RESULT_SCHEMA },
      400: { description: 'Malformed address' },
      404: { description: 'Unknown credential, or no device with that UUID' },
      409: { description: '`GW_ERR_TARGET_AMBIGUOUS`: several devices share the address (the problem lists their ids); name one by device id or UUID' },
      422: { description: 'Address outside the allowed networks' },
    },
    async handler(req): Promise<WsmanTestResult> {
      const { credentialId } = req.query;
      const chosen = credentialId !== undefined ? pick(credentialId) : vault.list().find((x) => x.isDefault);
      const { address, device, result } = await check(req.params.ip_address, 'params.ip_address', chosen?.id ?? null);
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
