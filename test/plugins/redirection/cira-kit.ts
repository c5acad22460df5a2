/** What the CIRA redirection tests share: a gateway with the CIRA server and an MPS account, a fleet dialing in to it, and its devices once read. */
import assert from 'node:assert/strict';
import { startFleet, type Fleet } from '../../sim/index.js';
import type { SimDevice } from '../../sim/sim-device.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';
import type { Device } from '../../../plugins/rest-api/api.js';
import { ciraPort } from '../cira/gateway-cira-helpers.js';
import { until } from '../../helpers/poll.js';

export interface CiraKit {
  gw: TestGateway;
  token: string;
  fleet: Fleet;
  /** The gateway's device for a tunnelled simulated device, once the tunnel is up and it signed in. */
  deviceOf(sim: SimDevice): Promise<Device>;
  stop(): Promise<void>;
}

/** Two devices (the second a TLS device forwarding only 16993/16995) that reach the gateway only through CIRA. */
export async function startCiraKit(plugins: string[], base: string, seed: string): Promise<CiraKit> {
  const mps = { username: `mps-${seed}`, password: `Mps-P@ssw0rd-${seed}` };
  const logs: string[] = [];
  const gw = await startTestGateway({
    plugins: ['rest-api', 'cira', ...plugins],
    logs,
    overrides: mergeConfig(SIM_AMT_SETTINGS, { plugins: { cira: { options: { port: 0, keepAliveIntervalSeconds: 1, keepAliveTimeoutSeconds: 3, forwardSettleMs: 50 } } } }),
  });
  const token = await gw.login();
  await createCredential(gw, token, { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true });
  assert.equal((await gw.request('POST', '/api/cira/accounts', { token, body: mps })).status, 201);
  const ca = ((await (await gw.request('GET', '/api/cira/certificate', { token })).json()) as { pem: string }).pem;
  const fleet = await startFleet({ count: 2, base, rmcpPort: 0, seed, tlsEvery: 2, provisioningModes: [1], cira: { host: '127.0.0.1', port: ciraPort(logs), ...mps, ca, keepAliveSeconds: 1, reconnectMs: 0 } });
  return {
    gw,
    token,
    fleet,
    async deviceOf(sim) {
      await sim.cira!.waitFor('connected');
      return until('the tunnelled device is read', async () => {
        const list = (await (await gw.request('GET', '/api/devices', { token })).json()) as Device[];
        const found = list.find((d) => d.uuid === sim.config.uuid);
        return found?.authStatus === 'ok' ? found : undefined;
      });
    },
    async stop() {
      await fleet.stop();
      await gw.cleanup();
    },
  };
}
