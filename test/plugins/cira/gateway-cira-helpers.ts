/** Helpers of the tests that run a whole gateway with the cira plugin. */
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';

/** The CIRA listener's port, from the gateway's own log line (the tests listen on port 0). */
export function ciraPort(logs: readonly string[]): number {
  const line = logs.map((l) => JSON.parse(l) as { msg: string; port?: number }).find((l) => l.msg === 'cira server listening');
  if (!line?.port) throw new Error('the CIRA listener did not report its port');
  return line.port;
}


/** A gateway with rest-api, power-mgmt and cira (1 s keep-alives), a default credential stored. */
export async function startCiraGateway(logs: string[]): Promise<{ gw: TestGateway; token: string; ca: string; port: number }> {
  const gw = await startTestGateway({
    plugins: ['rest-api', 'power-mgmt', 'cira'],
    logs,
    overrides: mergeConfig(SIM_AMT_SETTINGS, { plugins: { cira: { enable: true, options: { port: 0, keepAliveIntervalSeconds: 1, keepAliveTimeoutSeconds: 3, forwardSettleMs: 50 } } } }),
  });
  const token = await gw.login();
  await createCredential(gw, token, { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true });
  const ca = ((await (await gw.request('GET', '/api/cira/certificate', { token })).json()) as { pem: string }).pem;
  return { gw, token, ca, port: ciraPort(logs) };
}
